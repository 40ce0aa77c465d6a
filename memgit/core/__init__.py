"""The pure core: values in, values out; no clock, environment, git, network or user files (it reads
only data it ships, such as the vendored secret rules)."""
