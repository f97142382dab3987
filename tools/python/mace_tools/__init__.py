"""Python side of MACE: model building, conversion and validation tools."""
