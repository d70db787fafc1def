"""The agent layer: who writes each step and what they are told. `store` holds each agent's role and strategy
texts, versioned per run (seeded from `agent_configs/` and `skills/`); `dispatcher` picks the agent that takes a
step of a task type; `experience` is the pool of what each agent did and how well it went; `prompting` builds
an agent's chat messages from the templates (`prompts/`), the skills and its texts; `evolution` rewrites the
weakest agents' texts every `evolution_interval` epochs from that pool, with prompts `prompting` builds.
"""
