"""The pure core: values in, values out; no git, no LLM, no files (DESIGN §7)."""
