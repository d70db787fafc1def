"""What a prompt shows of a competition's data: `data` writes the size-bounded preview of a data directory (file
tree, tables' shapes and columns, JSON structure), `columns` its "Columns by kind" part. The readers they build
on (`swarm/formats/columns.py`, what each column is) stay flat modules: the harness and the offline coder share them,
and the offline coder's solutions embed their source.
"""
