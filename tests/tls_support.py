"""Certificates for testing TLS against the lab's broker, made when the tests run: no key is ever kept.

A throwaway certificate authority signs the broker's certificate, whose subjectAltName holds 127.0.0.1 (the
address clients dial, so host name checks pass as they would on a real cluster) and localhost. Everything is
written as PEM, the one store format both the broker (Kafka's `ssl.keystore.type=PEM`) and every client under
test (kafka-python, Kafka's Java client in Spark) read, so no keytool step is needed. A second authority that
signed nothing stands in for a truststore of the wrong cluster.
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

VALID_FOR = datetime.timedelta(days=2)


@dataclass(frozen=True)
class TlsFiles:
    ca: Path  # the authority's certificate: a client's truststore
    keystore: Path  # the broker's key (PKCS#8, unencrypted) followed by its certificate and the authority's
    other_ca: Path  # an authority that signed nothing here: a truststore that must not trust the broker


def _key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _authority(common_name: str) -> tuple[rsa.RSAPrivateKey, x509.Certificate]:
    key = _key()
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(_name(common_name)).issuer_name(_name(common_name))
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + VALID_FOR)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                     data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                     crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    return key, certificate


def _server_certificate(ca_key: rsa.RSAPrivateKey, ca: x509.Certificate
                        ) -> tuple[rsa.RSAPrivateKey, x509.Certificate]:
    key = _key()
    now = datetime.datetime.now(datetime.timezone.utc)
    names = [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
    certificate = (
        x509.CertificateBuilder()
        .subject_name(_name("localhost")).issuer_name(ca.subject)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + VALID_FOR)
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    return key, certificate


def _pem(certificate: x509.Certificate) -> bytes:
    return certificate.public_bytes(serialization.Encoding.PEM)


def make_tls_files(directory: Path) -> TlsFiles:
    """A fresh authority, the broker's key and certificate signed by it, and an unrelated authority, as PEM
    files in ``directory`` (the key readable by its owner only)."""
    directory.mkdir(parents=True, exist_ok=True)
    ca_key, ca = _authority("kafka-meta test CA")
    key, certificate = _server_certificate(ca_key, ca)
    _, other = _authority("kafka-meta unrelated CA")
    files = TlsFiles(directory / "ca.pem", directory / "broker-keystore.pem", directory / "other-ca.pem")
    files.ca.write_bytes(_pem(ca))
    files.other_ca.write_bytes(_pem(other))
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    files.keystore.touch(mode=0o600)
    files.keystore.write_bytes(private + _pem(certificate) + _pem(ca))
    return files
