"""Format families: what each directory of ``schemas/`` means on the wire, plus the hand-declared formats."""
