"""Python AST -> array-level IR, specialized on the call's arguments."""
