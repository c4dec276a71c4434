"""Ways to look at a tokenizer: one adapter over every kind of model file (:mod:`.models`),
terminal views (:mod:`.terminal`), a summary (:mod:`.summary`) and an HTML page (:mod:`.page`).

The `tokenforge` command (:mod:`tokenforge.cli`) only parses arguments and calls these.
"""
