// Process entry on the (emulated) DSP: qemu-hexagon starts here with sp at
// argc. Align the stack for HVX spills and enter C++; dsp_entry never returns.
  .text
  .globl _start
  .type _start, @function
_start:
  r0 = r29
  r29 = and(r29, #-128)
  call dsp_entry
1:
  jump 1b
  .size _start, .-_start
