"""Parquet batches."""
