"""TLS for the arena's gRPC (docs/protocol.md, "TLS"): the server's key pair read from PEM
files, a client's channel (plaintext, or TLS checked against the system's roots or a CA
file of the user's, for a self-signed certificate), and which hosts an arena may listen
on without TLS (loopback only, unless the user says otherwise).

    cert = server_pair("arena.crt", "arena.key")          # (chain, key) PEM bytes
    ch = channel("arena.example.org:50051", Client(tls=True, ca="arena.crt"))

gRPC is imported when a channel is made, so that the command line can check its
arguments first."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

from .errors import ArenaError

MAX_PEM = 1 << 20       # bytes of a certificate, key or CA file


class TLSError(ArenaError):
    """A certificate, key or CA file that cannot be used (the message names it and says why)."""


@dataclass(frozen=True)
class Client:
    """How a client reaches an arena: ``tls`` (False: plaintext), ``ca``: a PEM file of
    the certificates to trust (None: the system's roots; given, it implies TLS)."""
    tls: bool = False
    ca: str | None = None

    @property
    def secure(self) -> bool:
        return self.tls or self.ca is not None

    def argv(self) -> list[str]:
        """The same as command-line arguments (`--tls`, `--ca FILE`), for a child process."""
        out = ["--tls"] if self.secure else []
        return out + (["--ca", self.ca] if self.ca else [])


PLAIN = Client()


def read_pem(path: str | Path, what: str) -> bytes:
    """The bytes of PEM file ``path`` (``what``: "certificate", "key", "CA file", for the
    message). Raises TLSError if it cannot be read, is larger than MAX_PEM or holds no
    PEM block."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            data = f.read(MAX_PEM + 1)
    except OSError as e:
        raise TLSError(f"{what} {p}: cannot read it: {e.strerror or e}") from None
    if len(data) > MAX_PEM:
        raise TLSError(f"{what} {p}: larger than {MAX_PEM} bytes: not a PEM file")
    if b"-----BEGIN " not in data:
        raise TLSError(f"{what} {p}: no PEM block ('-----BEGIN ...') in it")
    return data


def server_pair(cert: str | Path, key: str | Path) -> tuple[bytes, bytes]:
    """(certificate chain, private key) as PEM bytes, for `ArenaServer(tls=...)`. Raises
    TLSError for a file that cannot be used."""
    chain, secret = read_pem(cert, "certificate"), read_pem(key, "key")
    if b"PRIVATE KEY-----" not in secret:
        raise TLSError(f"key {key}: no private key in it (a '-----BEGIN ... PRIVATE KEY-----' block)")
    return chain, secret


def credentials(client: Client):
    """grpc.ChannelCredentials for ``client`` (TLS). Raises TLSError for a bad CA file."""
    import grpc
    roots = read_pem(client.ca, "CA file") if client.ca else None
    return grpc.ssl_channel_credentials(root_certificates=roots)


def channel(target: str, client: Client = PLAIN, options=None):
    """A grpc.Channel to ``target``: TLS if ``client.secure``, else plaintext."""
    import grpc
    if client.secure:
        return grpc.secure_channel(target, credentials(client), options=options)
    return grpc.insecure_channel(target, options=options)


def aio_channel(target: str, client: Client = PLAIN, options=None):
    """A grpc.aio.Channel to ``target``: TLS if ``client.secure``, else plaintext."""
    import grpc
    if client.secure:
        return grpc.aio.secure_channel(target, credentials(client), options=options)
    return grpc.aio.insecure_channel(target, options=options)


def loopback(host: str) -> bool:
    """Whether ``host`` (an address to listen on) is reachable from this machine only:
    ``localhost`` or a loopback address (127.0.0.0/8, ::1). A wildcard (0.0.0.0, ::,
    empty) or any other name or address is not."""
    h = host.strip().strip("[]").lower()
    if h == "localhost":
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False
