//! TLS material for managed servers. Every managed server gets a fresh CA and a server
//! certificate, so `have_ssl=YES` on both sides of an SSL comparison and only the client's
//! `tls` setting differs — which is exactly the change being measured.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use anyhow::Context;
use openssl::asn1::Asn1Time;
use openssl::bn::{BigNum, MsbOption};
use openssl::ec::{EcGroup, EcKey};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private};
use openssl::x509::extension::{BasicConstraints, KeyUsage, SubjectAlternativeName};
use openssl::x509::{X509, X509Builder, X509NameBuilder};

/// Paths of the generated PEM files.
#[derive(Debug, Clone)]
pub struct TlsFiles {
    /// CA certificate, for clients that verify.
    pub ca: PathBuf,
    /// Server certificate.
    pub(crate) cert: PathBuf,
    /// Server private key.
    pub(crate) key: PathBuf,
}

impl TlsFiles {
    /// Where the files of a server in `dir` are.
    pub(crate) fn in_dir(dir: &Path) -> TlsFiles {
        TlsFiles {
            ca: dir.join("ca.pem"),
            cert: dir.join("server-cert.pem"),
            key: dir.join("server-key.pem"),
        }
    }
}

/// The names a managed server's certificate carries: every way abtest reaches it.
pub const SERVER_NAMES: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// Writes a new CA and a server certificate for [`SERVER_NAMES`] into `dir`.
pub fn generate(dir: &Path) -> anyhow::Result<TlsFiles> {
    generate_for(dir, SERVER_NAMES)
}

/// As [`generate`], with chosen names (DNS names or IP addresses) in the server
/// certificate; the first one is its common name.
pub fn generate_for(dir: &Path, names: &[&str]) -> anyhow::Result<TlsFiles> {
    generate_files(dir, names).context("generating TLS certificates for the managed server")
}

fn generate_files(dir: &Path, names: &[&str]) -> anyhow::Result<TlsFiles> {
    let ca_key = new_key()?;
    let ca = build_certificate("abtest CA", &ca_key, None, true, &[])?;
    let server_key = new_key()?;
    let common_name = names.first().copied().unwrap_or("localhost");
    let server = build_certificate(common_name, &server_key, Some((&ca, &ca_key)), false, names)?;
    let files = TlsFiles::in_dir(dir);
    std::fs::write(&files.ca, ca.to_pem()?)?;
    std::fs::write(&files.cert, server.to_pem()?)?;
    write_private(&files.key, &server_key.private_key_to_pem_pkcs8()?)?;
    Ok(files)
}

/// Writes a private key readable by its owner alone (0600), from its creation on.
fn write_private(path: &Path, contents: &[u8]) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("creating {}", path.display()))?;
    file.write_all(contents)?;
    Ok(())
}

fn new_key() -> anyhow::Result<PKey<Private>> {
    let group = EcGroup::from_curve_name(Nid::X9_62_PRIME256V1)?;
    Ok(PKey::from_ec_key(EcKey::generate(&group)?)?)
}

fn build_certificate(
    common_name: &str,
    key: &PKey<Private>,
    issuer: Option<(&X509, &PKey<Private>)>,
    is_ca: bool,
    alt_names: &[&str],
) -> anyhow::Result<X509> {
    let mut name = X509NameBuilder::new()?;
    name.append_entry_by_nid(Nid::COMMONNAME, common_name)?;
    let name = name.build();
    let mut builder = X509Builder::new()?;
    builder.set_version(2)?;
    let mut serial = BigNum::new()?;
    serial.rand(64, MsbOption::MAYBE_ZERO, false)?;
    let serial = serial.to_asn1_integer()?;
    builder.set_serial_number(&serial)?;
    builder.set_subject_name(&name)?;
    builder.set_pubkey(key)?;
    let not_before = Asn1Time::days_from_now(0)?;
    let not_after = Asn1Time::days_from_now(30)?;
    builder.set_not_before(&not_before)?;
    builder.set_not_after(&not_after)?;
    if is_ca {
        builder.append_extension(BasicConstraints::new().critical().ca().build()?)?;
        builder.append_extension(
            KeyUsage::new()
                .critical()
                .key_cert_sign()
                .crl_sign()
                .build()?,
        )?;
    } else {
        builder.append_extension(BasicConstraints::new().build()?)?;
        let mut san = SubjectAlternativeName::new();
        for alt in alt_names {
            if alt.parse::<IpAddr>().is_ok() {
                san.ip(alt);
            } else {
                san.dns(alt);
            }
        }
        builder
            .append_extension(san.build(&builder.x509v3_context(issuer.map(|i| &**i.0), None))?)?;
    }
    match issuer {
        Some((issuer_cert, issuer_key)) => {
            builder.set_issuer_name(issuer_cert.subject_name())?;
            builder.sign(issuer_key, MessageDigest::sha256())?;
        }
        None => {
            builder.set_issuer_name(&name)?;
            builder.sign(key, MessageDigest::sha256())?;
        }
    }
    Ok(builder.build())
}
