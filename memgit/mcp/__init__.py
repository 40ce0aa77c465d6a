"""memgit's stdio MCP server (`memgit mcp`): the agents' way to ask memgit mid-session.

The only package that speaks the Model Context Protocol (the `mcp` SDK, an optional extra). Like
memgit.hook for the agents' hook protocols, it is an adapter at the edge: each tool calls one verb
and renders its result for the agent.
"""
