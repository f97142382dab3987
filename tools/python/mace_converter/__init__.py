"""MACE's model converter: deployment files in, MACE models and libraries out."""
