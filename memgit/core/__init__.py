"""The pure core: values in, values out; no files, clock, environment, git or network."""
