#!/usr/bin/env python3
"""Draws a memory plan from mace_plan as an SVG picture.

Op index runs across, byte offset runs up, and every tensor is one box
from its first to its last op. A dashed line marks the lower bound, so the
gap between the plan and the best possible one is visible at a glance.

    mace_plan --strategy=greedy_by_size --mode=offsets model.csv > plan.json
    python3 tools/plan_picture.py plan.json model.csv -o plan.svg

The CSV is the one given to mace_plan (size,first,last; width,height,
first,last; or MiniMalloc's id,lower,upper,size), or the name,size,first,last
records of a model that `mace_run --memory_plan=PREFIX` writes with its plan
(PREFIX.csv and PREFIX.json):

    mace_run --model_file=m.pb --model_data_file=m.data --memory_plan=build/m
    python3 tools/plan_picture.py build/m.json build/m.csv -o build/m.svg

Plans of 2D images have
no offsets; their objects are drawn stacked by area, in object order.
Only the Python standard library is used.
"""

import argparse
import colorsys
import csv
import json
import sys
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, TextIO
from xml.sax.saxutils import escape

MARGIN_LEFT = 90
MARGIN_RIGHT = 20
MARGIN_TOP = 60
MARGIN_BOTTOM = 45


@dataclass
class Tensor:
    """One tensor: its extent in bytes (or area) and inclusive lifetime."""
    label: str
    size: int
    first: int
    last: int


class PlanError(Exception):
    """Bad input; reported as one line and exit code 1."""


def read_tensors(stream: TextIO) -> List[Tensor]:
    """Parses the three CSV forms mace_plan accepts, and mace_run's named one."""
    rows = [row for row in csv.reader(stream) if any(cell.strip() for cell in row)]
    if not rows:
        raise PlanError("the CSV file is empty")
    header = [cell.strip().lower() for cell in rows[0]]
    tensors = []
    try:
        for number, row in enumerate(rows[1:]):
            cells = [cell.strip() for cell in row]
            if header == ["name", "size", "first", "last"]:
                # mace_run --memory_plan: a model's own tensors, by name.
                tensors.append(Tensor(cells[0], int(cells[1]), int(cells[2]),
                                      int(cells[3])))
            elif header == ["size", "first", "last"]:
                tensors.append(Tensor(str(number), int(cells[0]), int(cells[1]),
                                      int(cells[2])))
            elif header == ["width", "height", "first", "last"]:
                tensors.append(Tensor(str(number), int(cells[0]) * int(cells[1]),
                                      int(cells[2]), int(cells[3])))
            elif header == ["id", "lower", "upper", "size"]:
                # MiniMalloc lifetimes are half-open.
                tensors.append(Tensor(cells[0], int(cells[3]), int(cells[1]),
                                      int(cells[2]) - 1))
            else:
                raise PlanError(f"unknown CSV header {','.join(header)}")
    except (IndexError, ValueError) as error:
        raise PlanError(f"bad CSV row: {error}") from error
    return tensors


def offsets_of(plan: Dict, tensors: Sequence[Tensor]) -> List[int]:
    """The plan's offsets, or image objects stacked by area."""
    if "offsets" in plan:
        offsets = plan["offsets"]
    elif "object_ids" in plan:
        areas = [size[0] * size[1] if isinstance(size, list) else size
                 for size in plan["object_sizes"]]
        starts = [sum(areas[:k]) for k in range(len(areas))]
        offsets = [starts[k] for k in plan["object_ids"]]
    else:
        raise PlanError("the JSON has neither offsets nor object_ids")
    if len(offsets) != len(tensors):
        raise PlanError(f"the plan has {len(offsets)} tensors, the CSV {len(tensors)}")
    return offsets


def color(key: int) -> str:
    """A stable, well spread colour per tensor (or per shared object)."""
    hue = (key * 0.618033988749895) % 1.0
    red, green, blue = colorsys.hls_to_rgb(hue, 0.62, 0.55)
    return f"#{int(red * 255):02x}{int(green * 255):02x}{int(blue * 255):02x}"


def is_image_plan(plan: Dict) -> bool:
    """Image plans give each object as [width, height] and have no offsets."""
    return "offsets" not in plan and any(
        isinstance(size, list) for size in plan.get("object_sizes", []))


def title_of(plan: Dict, top: int) -> str:
    total = plan.get("total", top)
    bound = plan.get("lower_bound")
    parts = [f"{plan.get('strategy', '?')} ({plan.get('mode', '?')})", f"total {total:,}"]
    if bound:
        parts.append(f"lower bound {bound:,} ({total / bound:.3f}x)")
    if plan.get("optimal") is True:
        parts.append("optimal")
    return ", ".join(parts)


def render(plan: Dict, tensors: Sequence[Tensor], width: int, height: int) -> str:
    offsets = offsets_of(plan, tensors)
    objects: Optional[List[int]] = plan.get("object_ids")
    bound = int(plan.get("lower_bound") or 0)
    top = max([offset + t.size for offset, t in zip(offsets, tensors)] + [bound, 1])
    start = min([t.first for t in tensors] + [0])
    end = max([t.last + 1 for t in tensors] + [start + 1])
    plot_w = width - MARGIN_LEFT - MARGIN_RIGHT
    plot_h = height - MARGIN_TOP - MARGIN_BOTTOM

    def x(task: float) -> float:
        return MARGIN_LEFT + (task - start) * plot_w / (end - start)

    def y(offset: float) -> float:
        return MARGIN_TOP + plot_h - offset * plot_h / top

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15">'
        f'{escape(title_of(plan, top))}</text>',
    ]
    images = is_image_plan(plan)
    for k, (tensor, offset) in enumerate(zip(tensors, offsets)):
        if tensor.size == 0:
            continue
        key = objects[k] if objects else k
        box_h = max(y(offset) - y(offset + tensor.size), 0.5)
        where = "area" if images else "offset"
        tip = (f"tensor {tensor.label}: {tensor.size:,} at {where} {offset:,}, "
               f"ops {tensor.first}..{tensor.last}")
        if objects:
            tip += f", object {objects[k]}"
        out.append(
            f'<rect x="{x(tensor.first):.2f}" y="{y(offset + tensor.size):.2f}" '
            f'width="{max(x(tensor.last + 1) - x(tensor.first), 0.5):.2f}" '
            f'height="{box_h:.2f}" fill="{color(key)}" stroke="#333" stroke-width="0.4">'
            f'<title>{escape(tip)}</title></rect>')
    if bound:
        out.append(f'<line x1="{MARGIN_LEFT}" x2="{width - MARGIN_RIGHT}" y1="{y(bound):.2f}" '
                   f'y2="{y(bound):.2f}" stroke="red" stroke-width="1.5" '
                   f'stroke-dasharray="6,4"/>')
        # The legend sits above the plot, where no box can hide it.
        legend_y = MARGIN_TOP - 14
        out.append(f'<line x1="{width - MARGIN_RIGHT - 30}" x2="{width - MARGIN_RIGHT}" '
                   f'y1="{legend_y - 4}" y2="{legend_y - 4}" stroke="red" '
                   f'stroke-width="1.5" stroke-dasharray="6,4"/>')
        out.append(f'<text x="{width - MARGIN_RIGHT - 36}" y="{legend_y}" fill="red" '
                   f'text-anchor="end">lower bound {bound:,}</text>')
    # Axes with a few round tick labels.
    base = MARGIN_TOP + plot_h
    out.append(f'<line x1="{MARGIN_LEFT}" x2="{MARGIN_LEFT}" y1="{MARGIN_TOP}" y2="{base}" '
               f'stroke="black"/>')
    out.append(f'<line x1="{MARGIN_LEFT}" x2="{width - MARGIN_RIGHT}" y1="{base}" '
               f'y2="{base}" stroke="black"/>')
    for k in range(5):
        offset = top * k // 4
        out.append(f'<text x="{MARGIN_LEFT - 6}" y="{y(offset) + 4:.2f}" '
                   f'text-anchor="end">{offset:,}</text>')
        task = start + (end - start) * k // 4
        # The last label ends at the plot's edge instead of running past it.
        anchor = "end" if k == 4 else "middle"
        out.append(f'<text x="{x(task):.2f}" y="{base + 16}" '
                   f'text-anchor="{anchor}">{task:,}</text>')
    out.append(f'<text x="{MARGIN_LEFT + plot_w / 2}" y="{height - 8}" '
               f'text-anchor="middle">op index</text>')
    axis = "area, objects stacked (pixels)" if images else "offset (bytes)"
    out.append(f'<text x="16" y="{MARGIN_TOP + plot_h / 2}" text-anchor="middle" '
               f'transform="rotate(-90 16 {MARGIN_TOP + plot_h / 2})">{escape(axis)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("plan", help="mace_plan's JSON output ('-' for stdin)")
    parser.add_argument("records", help="the CSV file given to mace_plan")
    parser.add_argument("-o", "--output", default="-", help="SVG file ('-' for stdout)")
    parser.add_argument("--width", type=int, default=1000)
    parser.add_argument("--height", type=int, default=600)
    args = parser.parse_args(argv)
    try:
        if args.plan == "-":
            text = sys.stdin.read()
        else:
            with open(args.plan, encoding="utf-8") as stream:
                text = stream.read()
        if not text.strip():
            # What a failed `mace_plan ... > plan.json` leaves behind.
            raise PlanError(f"{args.plan} is empty; mace_plan's JSON output was expected")
        plan = json.loads(text)
        with open(args.records, encoding="utf-8", newline="") as stream:
            tensors = read_tensors(stream)
        if args.width < 200 or args.height < 150:
            raise PlanError("the picture must be at least 200 x 150")
        svg = render(plan, tensors, args.width, args.height)
    except (OSError, json.JSONDecodeError, PlanError) as error:
        print(f"plan_picture: error: {error}", file=sys.stderr)
        return 1
    if args.output == "-":
        sys.stdout.write(svg)
    else:
        with open(args.output, "w", encoding="utf-8") as stream:
            stream.write(svg)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
