"""Tests of the converter's front half: frontends, transforms, serialization."""
