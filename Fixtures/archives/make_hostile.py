#!/usr/bin/env python3
"""Writes the corpus of hostile archives in Fixtures/archives/hostile/.

Each file is an archive (or something posing as one) that `deck unarchive` and
ArchiveExtractor must refuse without writing anything. The output is deterministic
(fixed times, owners and compression settings): rerunning this script leaves
`git status` clean. Tests/ArchiveTests/HostileArchiveTests.swift lists every file with the
refusal it expects, and fails if a file here is not listed.

Usage: python3 Fixtures/archives/make_hostile.py
"""
import gzip
import io
import lzma
import os
import random
import struct
import tarfile
import zipfile
import warnings

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile")
DECK = "Deck.sampledeck"
MANIFEST = b'{"format": 1, "title": "Hostile"}\n'


# ---------------------------------------------------------------- zip helpers

def zip_info(name, mode=0o100644):
    info = zipfile.ZipInfo(name, date_time=(2000, 1, 1, 0, 0, 0))
    info.create_system = 3  # Unix: the external attributes carry a st_mode
    info.external_attr = mode << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def write_zip(filename, entries):
    """entries: (name, data, st_mode) tuples, written in order (duplicates allowed)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data, mode in entries:
            if name.endswith("/"):
                info = zip_info(name, mode or 0o40755)
                info.compress_type = zipfile.ZIP_STORED
            else:
                info = zip_info(name, mode or 0o100644)
            archive.writestr(info, data, compresslevel=9)
    save(filename, buffer.getvalue())


# ---------------------------------------------------------------- tar helpers

def tar_info(name, kind=tarfile.REGTYPE, size=0, linkname="", mode=0o644):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.size = size
    info.linkname = linkname
    info.mode = mode
    info.mtime = 946684800
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


def tar_bytes(members):
    """members: (TarInfo, data or None) tuples."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
        for info, data in members:
            archive.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def write_tar_gz(filename, members):
    save(filename, gzip.compress(tar_bytes(members), compresslevel=9, mtime=0))


def file_member(name, data):
    return (tar_info(name, size=len(data)), data)


def dir_member(name):
    return (tar_info(name, tarfile.DIRTYPE, mode=0o755), None)


def save(filename, data):
    with open(os.path.join(HERE, filename), "wb") as out:
        out.write(data)


# ---------------------------------------------------------------- the corpus

def main():
    warnings.filterwarnings("ignore", message="Duplicate name")
    os.makedirs(HERE, exist_ok=True)
    manifest = f"{DECK}/manifest.json"

    # A name climbing out of the destination.
    escape = f"{DECK}/../../sampledeck-hostile-escape.txt"
    write_zip("dotdot.zip", [(manifest, MANIFEST, 0), (escape, b"escaped\n", 0)])
    write_tar_gz("dotdot.tar.gz", [file_member(manifest, MANIFEST), file_member(escape, b"escaped\n")])

    # A backslash path: a separator on Windows, a trap everywhere.
    write_zip("backslash.zip", [(manifest, MANIFEST, 0), (DECK + "\\..\\..\\evil.txt", b"evil\n", 0)])

    # An absolute name.
    absolute = "/tmp/sampledeck-hostile-absolute.txt"
    write_zip("absolute.zip", [(manifest, MANIFEST, 0), (absolute, b"absolute\n", 0)])
    write_tar_gz("absolute.tar.gz", [file_member(manifest, MANIFEST), file_member(absolute, b"absolute\n")])

    # A symbolic link out of the destination, then a file written through it.
    link = f"{DECK}/Media"
    write_zip("symlink.zip", [(manifest, MANIFEST, 0), (link, b"/tmp", 0o120777), (f"{link}/through-link.txt", b"x\n", 0)])
    write_tar_gz("symlink.tar.gz", [
        file_member(manifest, MANIFEST),
        (tar_info(link, tarfile.SYMTYPE, linkname="/tmp", mode=0o777), None),
        file_member(f"{link}/through-link.txt", b"x\n"),
    ])

    # A hard link to a file outside (tar only: zip has no hard links).
    write_tar_gz("hardlink.tar.gz", [
        file_member(manifest, MANIFEST),
        (tar_info(f"{DECK}/passwd", tarfile.LNKTYPE, linkname="/etc/passwd"), None),
    ])

    # A character device (/dev/null's numbers) and a fifo; zip through its Unix mode bits.
    device = tar_info(f"{DECK}/null", tarfile.CHRTYPE, mode=0o666)
    device.devmajor, device.devminor = 1, 3
    write_tar_gz("chardev.tar.gz", [file_member(manifest, MANIFEST), (device, None)])
    write_zip("chardev.zip", [(manifest, MANIFEST, 0), (f"{DECK}/null", b"", 0o020666)])
    # (No fifo.zip: libarchive's zip reader reads a fifo mode as a plain file, which is harmless.)
    write_tar_gz("fifo.tar.gz", [file_member(manifest, MANIFEST), (tar_info(f"{DECK}/pipe", tarfile.FIFOTYPE), None)])

    # The same name twice (the second would silently replace the first).
    write_zip("duplicate.zip", [(manifest, MANIFEST, 0), (manifest, b'{"evil": true}\n', 0)])
    write_tar_gz("duplicate.tar.gz", [file_member(manifest, MANIFEST), file_member(manifest, b'{"evil": true}\n')])

    # A file, then an entry inside that file.
    write_zip("file-as-directory.zip", [(manifest, MANIFEST, 0), (f"{manifest}/inner.txt", b"x\n", 0)])
    write_tar_gz("file-as-directory.tar.gz", [file_member(manifest, MANIFEST), file_member(f"{manifest}/inner.txt", b"x\n")])

    # Two decks side by side: one top-level directory is allowed.
    write_zip("two-top-level.zip", [("A.sampledeck/manifest.json", MANIFEST, 0), ("B.sampledeck/manifest.json", MANIFEST, 0)])
    write_tar_gz("two-top-level.tar.gz", [
        file_member("A.sampledeck/manifest.json", MANIFEST), file_member("B.sampledeck/manifest.json", MANIFEST)])

    # A file beside the deck directory.
    write_zip("outside-top-level.zip", [(manifest, MANIFEST, 0), ("README.txt", b"hello\n", 0)])
    write_tar_gz("outside-top-level.tar.gz", [file_member(manifest, MANIFEST), file_member("README.txt", b"hello\n")])

    # A top level that is not a deck.
    write_zip("not-a-deck-top-level.zip", [("Documents/manifest.json", MANIFEST, 0)])

    # A file where the deck directory belongs.
    write_tar_gz("top-level-file.tar.gz", [file_member(DECK, MANIFEST)])

    # A name that is not UTF-8 (tar stores bytes; a GNU header has no charset to say otherwise).
    raw = tarfile.TarInfo(f"{DECK}/\udcff\udcfe.txt")
    raw.size, raw.mtime, raw.mode = 2, 946684800, 0o644
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT, encoding="utf-8", errors="surrogateescape") as archive:
        archive.addfile(tarfile.TarInfo(manifest), io.BytesIO(b""))
        archive.addfile(raw, io.BytesIO(b"x\n"))
    save("non-utf8-name.tar.gz", gzip.compress(buffer.getvalue(), compresslevel=9, mtime=0))

    # More entries than the tests' limit of 100.
    many = [(f"{DECK}/Media/{index:04}.txt", b"", 0) for index in range(200)]
    write_zip("too-many-entries.zip", [(manifest, MANIFEST, 0)] + many)
    write_tar_gz("too-many-entries.tar.gz", [file_member(manifest, MANIFEST)] + [file_member(n, d) for n, d, _ in many])

    # Zip bombs: 50 MB of zeros, a few tens of KB compressed (declared honestly).
    zeros = bytes(50 * 1000 * 1000)
    write_zip("bomb.zip", [(manifest, MANIFEST, 0), (f"{DECK}/store.sqlite", zeros, 0)])
    save("bomb.tar.xz", lzma.compress(tar_bytes([file_member(manifest, MANIFEST), file_member(f"{DECK}/store.sqlite", zeros)]),
                                      preset=9))

    # A zip whose headers declare 100 bytes for an entry that inflates to 5 MB.
    write_zip("size-lies.zip", [(manifest, MANIFEST, 0), (f"{DECK}/store.sqlite", bytes(5 * 1000 * 1000), 0)])
    patch_uncompressed_size("size-lies.zip", f"{DECK}/store.sqlite", 100)

    # Truncated archives: cut in the middle of an entry's data.
    payload = random.Random(1).randbytes(16 * 1024)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(zip_info(manifest), MANIFEST)
        archive.writestr(zip_info(f"{DECK}/store.sqlite"), payload)
    whole = buffer.getvalue()
    save("truncated.zip", whole[: len(whole) * 6 // 10])
    whole = gzip.compress(tar_bytes([file_member(manifest, MANIFEST), file_member(f"{DECK}/store.sqlite", payload)]),
                          compresslevel=9, mtime=0)
    save("truncated.tar.gz", whole[: len(whole) * 6 // 10])

    # Not archives at all.
    text = b"This is a note, not an archive.\n" * 4
    save("not-an-archive.zip", text)
    save("not-an-archive.tar.gz", gzip.compress(text, mtime=0))


def patch_uncompressed_size(filename, name, size):
    """Rewrites the uncompressed size of `name` in its local header and central directory entry."""
    path = os.path.join(HERE, filename)
    data = bytearray(open(path, "rb").read())
    encoded = name.encode()
    patched = 0
    # Local file header: signature, then the uncompressed size at offset 22, name at 30.
    offset = data.find(b"PK\x03\x04")
    while offset != -1:
        name_length = struct.unpack_from("<H", data, offset + 26)[0]
        if data[offset + 30: offset + 30 + name_length] == encoded:
            struct.pack_into("<I", data, offset + 22, size)
            patched += 1
        offset = data.find(b"PK\x03\x04", offset + 4)
    # Central directory header: the uncompressed size at offset 24, name at 46.
    offset = data.find(b"PK\x01\x02")
    while offset != -1:
        name_length = struct.unpack_from("<H", data, offset + 28)[0]
        if data[offset + 46: offset + 46 + name_length] == encoded:
            struct.pack_into("<I", data, offset + 24, size)
            patched += 1
        offset = data.find(b"PK\x01\x02", offset + 4)
    assert patched == 2, f"patched {patched} headers in {filename}"
    with open(path, "wb") as out:
        out.write(data)


if __name__ == "__main__":
    main()
