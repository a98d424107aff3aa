"""Format families and hand-declared formats: one module per family, each exporting a
:class:`~kafka_meta.formats.family.FormatPlugin`, listed in :mod:`kafka_meta.formats.catalogue`.

A new family or format is a new module here (plus spec files) and one line in the catalogue.
"""
