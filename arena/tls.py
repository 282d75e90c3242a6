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
import ssl
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


CERT_BLOCK = b"-----BEGIN CERTIFICATE-----"


def _has_key(data: bytes) -> bool:
    return b"PRIVATE KEY-----" in data


def server_pair(cert: str | Path, key: str | Path) -> tuple[bytes, bytes]:
    """(certificate chain, private key) as PEM bytes, for `ArenaServer(tls=...)`, checked
    before the arena serves: ``cert`` holds a certificate, ``key`` a private key, the two
    swapped is named as such, and the key is the certificate's (Python's ssl module loads
    the pair, as OpenSSL does when the arena serves). Raises TLSError, one line, for a
    file that cannot be used."""
    chain, secret = read_pem(cert, "certificate"), read_pem(key, "key")
    if CERT_BLOCK not in chain and _has_key(chain) and CERT_BLOCK in secret:
        raise TLSError(f"--tls-cert {cert} holds a private key and --tls-key {key} a certificate: "
                       "the two files are swapped")
    if CERT_BLOCK not in chain:
        raise TLSError(f"certificate {cert}: no certificate in it (a '-----BEGIN CERTIFICATE-----' block)"
                       + (": it holds a private key; --tls-cert takes the certificate" if _has_key(chain) else ""))
    if not _has_key(secret):
        raise TLSError(f"key {key}: no private key in it (a '-----BEGIN ... PRIVATE KEY-----' block)"
                       + (": it holds a certificate; --tls-key takes the private key" if CERT_BLOCK in secret
                          else ""))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        ctx.load_cert_chain(str(cert), str(key))
    except ssl.SSLError as e:
        if "KEY_VALUES_MISMATCH" in str(e) or "key values mismatch" in str(e):
            raise TLSError(f"the key {key} does not match the certificate {cert}") from None
        raise TLSError(f"certificate {cert} and key {key}: cannot be used together: "
                       f"{e.reason or e}") from None
    except OSError as e:
        raise TLSError(f"certificate {cert} and key {key}: cannot read them: {e.strerror or e}") from None
    return chain, secret


def ca_pem(path: str | Path, what: str = "CA file") -> bytes:
    """The bytes of CA file ``path``: PEM holding at least one certificate, each one that
    OpenSSL can parse. Raises TLSError otherwise (a private key given as the CA, say)."""
    data = read_pem(path, what)
    if CERT_BLOCK not in data:
        held = ": it holds a private key, not a certificate" if _has_key(data) else ""
        raise TLSError(f"{what} {path}: no certificate in it (a '-----BEGIN CERTIFICATE-----' block){held}")
    try:
        ssl.create_default_context(cadata=data.decode("ascii", "replace"))
    except (ssl.SSLError, ValueError) as e:
        raise TLSError(f"{what} {path}: a certificate in it cannot be read: {getattr(e, 'reason', None) or e}") from None
    return data


def credentials(client: Client):
    """grpc.ChannelCredentials for ``client`` (TLS). Raises TLSError for a bad CA file."""
    import grpc
    roots = ca_pem(client.ca) if client.ca else None
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
