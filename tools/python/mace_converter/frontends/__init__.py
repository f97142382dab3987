"""Frontends: each reads one framework's model into the IR (ir.Graph)."""
