"""Rewrite patterns, one file per family; each family is a list of ``ir.rewrite.Pattern``
rows and families compose by ``+`` (``ALL`` is what the canonicalize pass runs)."""
from .algebra import ALGEBRA
from .masks import MASKS
from .nested_updates import NESTED_UPDATES
from .products import PRODUCTS
from .read_after_update import READ_AFTER_UPDATE
from .shapes import SHAPES
from .split_products import SPLIT_PRODUCTS

ALL = ALGEBRA + SHAPES + READ_AFTER_UPDATE + NESTED_UPDATES + PRODUCTS + SPLIT_PRODUCTS + MASKS
