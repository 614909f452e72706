"""Exact analyses of the abstract tree problems of the NMCS paper (section 4)."""
