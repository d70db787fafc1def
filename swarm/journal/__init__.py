"""The solution journal: every tried solution as a node of a DAG.

- `node`: a `Node` is one solution (code, plan, genes), how it ran and how it was reviewed;
- `step_record`: what a node keeps of its step, as values: how its code ran (`Execution`), how it was judged
  (`Review`);
- `node_meta`: a node's `NodeMeta`, what the step that made it recorded (submission files, the score's source);
- `dag`: a `Journal` holds nodes in the order they were appended (`step`), with the queries search policies need;
- `store`: a journal on disk, append-only (`Journal.save`, `Journal.load`), and the older whole document;
- `memory`: what a prompt shows of a journal (its memory): `memory_summary`, within a character budget.
"""

from swarm.journal.dag import Journal
from swarm.journal.node import JournalError, Node
from swarm.journal.node_meta import NodeMeta
from swarm.journal.step_record import Execution, Review, StackFrame
from swarm.journal.store import MUTABLE_FIELDS, fields_path, write_journal_prefix

__all__ = [
    "MUTABLE_FIELDS",
    "Execution",
    "Journal",
    "JournalError",
    "Node",
    "NodeMeta",
    "Review",
    "StackFrame",
    "fields_path",
    "write_journal_prefix",
]
