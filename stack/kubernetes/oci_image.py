#!/usr/bin/env python3
"""Write a one-layer OCI image archive from a few static files, for `ctr images import`.

No registry serves images here, so the cluster's own images (the pod sandbox's pause, CoreDNS)
are packed from binaries built on this machine:

    oci_image.py OUT.tar NAME:TAG --file SRC:/DEST [--file ...] --entrypoint /DEST [--user 65532]

The archive is reproducible (fixed timestamps, sorted entries), so a rebuild imports as the same
digest. NAME should be a full reference (docker.io/...): the CRI normalises short names that way.
"""

import argparse
import gzip
import hashlib
import io
import json
import tarfile
from pathlib import Path

EPOCH = 0  # fixed mtime: the same inputs give the same digests


def _entry(name: str, size: int = 0, mode: int = 0o644, kind: bytes = tarfile.REGTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.type, info.mtime = size, mode, kind, EPOCH
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


def _layer(files: list[tuple[Path, str]]) -> bytes:
    """A tar of the files at their destinations, with their parent directories."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        dirs = sorted({str(p) for _, dest in files for p in Path(dest.lstrip("/")).parents if str(p) != "."})
        for name in ["tmp", *dirs]:
            tar.addfile(_entry(name + "/", mode=0o1777 if name == "tmp" else 0o755, kind=tarfile.DIRTYPE))
        for src, dest in sorted(files, key=lambda f: f[1]):
            data = src.read_bytes()
            mode = 0o755 if src.stat().st_mode & 0o111 else 0o644
            tar.addfile(_entry(dest.lstrip("/"), len(data), mode), io.BytesIO(data))
    return raw.getvalue()


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def build(out: Path, name: str, files: list[tuple[Path, str]], entrypoint: list[str], user: str) -> str:
    layer = _layer(files)
    layer_gz = gzip.compress(layer, mtime=EPOCH)
    config = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            "config": {"Entrypoint": entrypoint, "User": user, "WorkingDir": "/"},
            "rootfs": {"type": "layers", "diff_ids": [_digest(layer)]},
        },
        sort_keys=True,
    ).encode()
    manifest = json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": _digest(config), "size": len(config)},
            "layers": [
                {"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": _digest(layer_gz), "size": len(layer_gz)}
            ],
        },
        sort_keys=True,
    ).encode()
    index = {
        "schemaVersion": 2,
        "manifests": [
            {
                "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "digest": _digest(manifest),
                "size": len(manifest),
                "annotations": {"io.containerd.image.name": name, "org.opencontainers.image.ref.name": name.rsplit(":", 1)[1]},
            }
        ],
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(out, "w") as tar:
        entries = {"oci-layout": b'{"imageLayoutVersion":"1.0.0"}', "index.json": json.dumps(index).encode()}
        for blob in (config, layer_gz, manifest):
            entries["blobs/sha256/" + _digest(blob).split(":")[1]] = blob
        for entry_name, data in entries.items():
            tar.addfile(_entry(entry_name, len(data)), io.BytesIO(data))
    return _digest(manifest)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("name", help="full reference, e.g. docker.io/tracetax/pause:3.10")
    parser.add_argument("--file", action="append", required=True, help="SRC:/DEST")
    parser.add_argument("--entrypoint", required=True)
    parser.add_argument("--user", default="0")
    args = parser.parse_args()
    files = [(Path(src), dest) for src, dest in (f.split(":", 1) for f in args.file)]
    print(f"{args.out}: {args.name} {build(args.out, args.name, files, [args.entrypoint], args.user)}")


if __name__ == "__main__":
    main()
