"""Argument types and values shared by the command groups of `taash`."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..errors import UsageError

DEFAULT_SERVER = "127.0.0.1:50051"


def shipped_path(arg: str) -> str:
    """A path the README writes as in a checkout, where no such file is here (an installed
    wheel, another folder): ``variants/29.yaml`` or ``variants/house/29-double.yaml`` gives
    the shipped name (``29``), ``docs/examples/queen-hunt.yaml`` the shipped example's
    path; anything else, or a file that exists, is given back as it is."""
    if Path(arg).exists():
        return arg
    rel = Path(arg).as_posix().removeprefix("./")
    if rel.startswith("variants/") and rel.endswith(".yaml"):
        from taash.interpreter import shipped_variants
        name = rel[len("variants/"):-len(".yaml")]
        if name in shipped_variants():
            return name
    if rel.startswith("docs/"):
        from taash.interpreter.loader import data_dir
        shipped = data_dir("docs") / rel[len("docs/"):]
        if shipped.is_file():
            return str(shipped)
    return arg


def parse_set(items) -> dict:
    """--set KEY=VALUE ...: the variant options, values int or true/false. Raises UsageError."""
    out = {}
    for item in items or []:
        if "=" not in item:
            raise UsageError(f"--set takes KEY=VALUE, not {item!r}")
        k, val = item.split("=", 1)
        k = k.strip()
        low = val.strip().lower()
        if low in ("true", "false"):
            out[k] = low == "true"
        else:
            try:
                out[k] = int(val)
            except ValueError:
                raise UsageError(f"--set {k}: the value must be an integer or true/false, not {val!r}") from None
    return out


def bots_list(text):
    """--bots A,B,...: the names, stripped; an empty name is an error."""
    names = [b.strip() for b in text.split(",")]
    if not text.strip() or any(not b for b in names):
        raise argparse.ArgumentTypeError(f"--bots takes bot names separated by commas, not {text!r}")
    return names


def port(text):
    """A TCP port 0..65535 (0: any free port)."""
    v = conv()(text)
    if v > 65535:
        raise argparse.ArgumentTypeError(f"a port is at most 65535, not {v}")
    return v


def address(text):
    """An arena's address for a client: HOST:PORT (a port 1..65535; an IPv6 host in
    brackets, [::1]:50051), or a gRPC target with its scheme (unix:PATH, dns:///HOST:PORT),
    taken as it is. A wrong one is refused at once, not retried for ever (`taash bot`)."""
    if text.startswith(("unix:", "unix-abstract:", "dns:", "ipv4:", "ipv6:", "vsock:")):
        return text
    host, sep, port = text.rpartition(":")
    if not sep or not host or (":" in host and not (host.startswith("[") and host.endswith("]"))):
        raise argparse.ArgumentTypeError(f"{text!r}: the arena's address is HOST:PORT (default {DEFAULT_SERVER})")
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r}: the port is a number 1..65535, not {port!r}")
    return text


def conv(minimum=0):
    """An argparse type: an integer from ``minimum`` to 2**31-1 (argparse names the
    option before the message: "argument --deals: must be at least 1, not 0")."""

    def conv(text):
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, not {text!r}") from None
        if v < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {v}")
        if v > 2**31 - 1:
            raise argparse.ArgumentTypeError(f"is too large: {v}")
        return v
    return conv


def server_arg(p: argparse.ArgumentParser) -> None:
    """--server ADDR: the arena's address (default $TAASH_SERVER, else `DEFAULT_SERVER`),
    and how to reach it (`tls_args`)."""
    p.add_argument("--server", type=address, default=os.environ.get("TAASH_SERVER", DEFAULT_SERVER),
                   metavar="ADDR", help=f"the arena's address, HOST:PORT (default $TAASH_SERVER or "
                                        f"{DEFAULT_SERVER})")
    tls_args(p)


def tls_args(p: argparse.ArgumentParser) -> None:
    """--tls and --ca FILE: a client's connection to an arena served with TLS."""
    p.add_argument("--tls", action="store_true",
                   help="connect to the arena with TLS (an arena served with --tls-cert), its certificate "
                        "checked against the system's roots (or --ca)")
    p.add_argument("--ca", metavar="FILE",
                   help="a PEM file of the certificates to trust (at least one certificate): the arena's own "
                        "for a self-signed one (implies --tls)")


def client_of(args):
    """The `tls.Client` of the --tls and --ca arguments. Raises UsageError for a CA file
    that cannot be read."""
    from ..tls import Client, TLSError, ca_pem
    ca = getattr(args, "ca", None)
    if ca is not None:
        try:
            ca_pem(ca, "--ca")
        except TLSError as e:
            raise UsageError(str(e)) from None
    return Client(bool(getattr(args, "tls", False)), ca)
