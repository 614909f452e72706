"""Second, independent implementations of published claims, in plain Python.

Where our number differs from a paper's, a few lines written from the paper's text alone (no
import from ``nmcs``) check whether the difference comes from our engine or from the claim.
Each module runs as a script and prints its numbers with 95% intervals."""
