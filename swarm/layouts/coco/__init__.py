"""Coco."""
