"""Templates of the offline coder's solutions: valid Python files that ruff lints, filled by render.py.

Each file is one part of a solution (a gene section, the GPU setup) whose text after the file's docstring the
renderer copies, filling two kinds of marked places:

- `CHOSEN_<NAME>`: replaced by the code of a value the genome chose (a repr, a class name, words of a
  docstring);
- a line `# <insert: name>`: replaced by a block of code (a function body of estimators.py, or the source of a
  function the coder shares with its solutions).

The parts use names that other parts define (ruff's F821 is off for this folder), so they are never imported.
ruff format leaves them as they are: their text is the solutions' text, byte for byte
(tests/offline/test_rendered_solutions.py).
"""
