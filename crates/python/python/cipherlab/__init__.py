"""cipherlab: lightweight authenticated encryption for Python, and the cipherlab catalogue.

* AEADs shaped like ``cryptography``'s ``AESGCM``: :class:`AsconAead128` (NIST SP 800-232),
  :class:`Ascon128`, :class:`Ascon128a`, :class:`Ascon80pq` (v1.2), :class:`Xoodyak`,
  :class:`IsapA128A`, :class:`IsapA128`, :class:`IsapK128A`, :class:`IsapK128`, and the
  catalogue's :class:`AESGCM` and :class:`ChaCha20Poly1305`. ``encrypt(nonce, data,
  associated_data)`` returns the ciphertext followed by the 16-byte tag; ``decrypt``
  raises :class:`InvalidTag` and returns no plaintext when the tag does not verify.
* Hashes shaped like ``hashlib`` objects: :class:`AsconHash256`, :class:`AsconXof128`,
  :class:`AsconCxof128`, the v1.2 :class:`AsconHash`, :class:`AsconHasha`,
  :class:`AsconXof`, :class:`AsconXofa`, and :class:`XoodyakHash`; :func:`new` by name.
* :class:`Cipher`: any cipher of the catalogue by name (``Cipher("aes-192-cbc", key,
  iv)``); legacy and broken ones warn with :class:`LegacyCipherWarning`.
* :mod:`cipherlab.seal`: the file container of ``cipherlab encrypt``/``decrypt``.

docs/python.md in the cipherlab repository is the guide.
"""

from typing import Dict, Optional, Type, Union

from ._cipherlab import (
    AESGCM,
    Ascon80pq,
    Ascon128,
    Ascon128a,
    AsconAead128,
    AsconCxof128,
    AsconHash,
    AsconHash256,
    AsconHasha,
    AsconXof,
    AsconXof128,
    AsconXofa,
    ChaCha20Poly1305,
    Cipher,
    InvalidTag,
    IsapA128,
    IsapA128A,
    IsapK128,
    IsapK128A,
    LegacyCipherWarning,
    Xoodyak,
    XoodyakHash,
    __version__,
    algorithms,
    hash_algorithms,
)
from . import seal

_Hash = Union[
    AsconHash256, AsconXof128, AsconCxof128, AsconHash, AsconHasha, AsconXof, AsconXofa, XoodyakHash
]

# The hash classes by catalogue name (each class carries its own).
HASHES: Dict[str, Type[_Hash]] = {
    cls.name: cls
    for cls in (AsconHash256, AsconXof128, AsconCxof128, AsconHash, AsconHasha, AsconXof, AsconXofa, XoodyakHash)
}

# The AEAD classes by catalogue name (AES-GCM's name depends on the key size).
AEADS = {
    cls.name: cls
    for cls in (
        AsconAead128, Ascon128, Ascon128a, Ascon80pq, Xoodyak,
        IsapA128A, IsapA128, IsapK128A, IsapK128, ChaCha20Poly1305,
    )
}


def new(name: str, data: Optional[bytes] = None, *, customization: Optional[bytes] = None) -> _Hash:
    """A hash object by catalogue name, as ``hashlib.new`` (``customization``: CXOFs only)."""
    try:
        cls = HASHES[name.lower()]
    except KeyError:
        raise ValueError(f"unknown hash {name!r}; known: {', '.join(HASHES)}") from None
    if customization is not None:
        if cls is not AsconCxof128:
            raise ValueError(f"{name} takes no customization string (use ascon-cxof128)")
        return AsconCxof128(data, customization=customization)
    return cls(data)


__all__ = [
    "AEADS", "AESGCM", "Ascon128", "Ascon128a", "Ascon80pq", "AsconAead128", "AsconCxof128",
    "AsconHash", "AsconHash256", "AsconHasha", "AsconXof", "AsconXof128", "AsconXofa",
    "ChaCha20Poly1305", "Cipher", "HASHES", "InvalidTag", "IsapA128", "IsapA128A", "IsapK128",
    "IsapK128A", "LegacyCipherWarning", "Xoodyak", "XoodyakHash", "__version__", "algorithms",
    "hash_algorithms", "new", "seal",
]
