"""The OpenCode side: the plugin, its installer, the doctor and the update.

Only the commands and the composition root use it: no other area imports from it
(``__all__`` is empty; ``tests/test_layers.py`` keeps it so).
"""

__all__: list[str] = []
