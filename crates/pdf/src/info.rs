//! `pdf info`: what a file is and how it is encrypted.

use crate::document::Pdf;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::object::Object;
use crate::security::{EncryptDict, Handler};

pub use crate::permissions::{PERMISSION_BITS, permissions};

/// A crypt filter as reported.
#[derive(Clone, Debug)]
pub struct FilterInfo {
    /// Its name in /CF.
    pub name: String,
    /// /CFM (`None`, `V2`, `AESV2`, `AESV3`).
    pub cfm: String,
    /// /Length as written.
    pub length: Option<i64>,
    /// /AuthEvent.
    pub auth_event: Option<String>,
}

/// Encryption as reported.
#[derive(Clone, Debug)]
pub struct EncryptionInfo {
    /// /V
    pub v: i64,
    /// /R
    pub r: i64,
    /// /Length in bits (the file key length for R5/R6: 256).
    pub length: i64,
    /// /CF entries.
    pub filters: Vec<FilterInfo>,
    /// /StmF, /StrF, /EFF (V4, V5).
    pub stmf: Option<String>,
    /// /StrF
    pub strf: Option<String>,
    /// /EFF
    pub eff: Option<String>,
    /// /P
    pub p: i32,
    /// Permissions decoded.
    pub permissions: Vec<(&'static str, bool)>,
    /// /EncryptMetadata
    pub encrypt_metadata: bool,
    /// The /Encrypt dictionary is direct in the trailer (not an indirect object).
    pub direct: bool,
    /// The empty user password does not open the file.
    pub needs_password: bool,
    /// With a password: `user`, `owner` or `user+owner`; `None` without.
    pub password: Option<String>,
    /// R6: whether /Perms matched /P and /EncryptMetadata (when the file could be opened).
    pub perms_ok: Option<bool>,
    /// R2-R4 opened with the owner password: the recovered user password.
    pub recovered_user_password: Option<zeroize::Zeroizing<Vec<u8>>>,
}

/// An unencrypted wrapper document's encrypted payload, as reported.
#[derive(Clone, Debug)]
pub struct WrapperInfo {
    /// The file is the wrapper (false: the payload itself, taken out of its wrapper).
    pub in_wrapper: bool,
    /// The embedded file's name.
    pub name: String,
    /// Its size.
    pub payload_bytes: usize,
    /// /EP /Subtype: the cryptographic filter.
    pub subtype: String,
    /// /EP /Version.
    pub version: Option<String>,
    /// For a cipherlab payload: the cipher (catalogue name).
    pub cipher: Option<String>,
    /// Its /CFM.
    pub cfm: Option<String>,
    /// The payload's PDF version.
    pub payload_version: Option<String>,
    /// The payload's /P.
    pub p: Option<i32>,
    /// The empty user password does not open it.
    pub needs_password: bool,
    /// With a password: `user`, `owner` or `user+owner`.
    pub password: Option<String>,
}

/// What `pdf info` reports.
#[derive(Clone, Debug)]
pub struct Info {
    /// Header version.
    pub version: String,
    /// Catalog /Version, when readable.
    pub catalog_version: Option<String>,
    /// In-use objects per the cross-reference data.
    pub objects: usize,
    /// Of which in object streams.
    pub objects_in_streams: usize,
    /// Cross-reference sections (more than one: incremental updates).
    pub xref_sections: usize,
    /// A cross-reference stream is used.
    pub xref_stream: bool,
    /// Why the cross-reference table was rebuilt, if it was.
    pub xref_rebuilt: Option<String>,
    /// Encryption, if any.
    pub encryption: Option<EncryptionInfo>,
    /// The file is an unencrypted wrapper around an encrypted payload (ISO 32000-2
    /// §7.6.7).
    pub wrapper: Option<WrapperInfo>,
    /// Repairs and oddities.
    pub warnings: Vec<String>,
}

/// Reports on `buf`. With `password`, also says which password it is; a wrong password
/// is an error ([`Error::WrongPassword`]).
pub fn info(buf: &[u8], password: Option<&str>) -> Result<Info> {
    info_with(buf, password, &Limits::default())
}

/// [`info`] within `limits`. It stays cheap on any file: it reads the cross-reference
/// data, the /Encrypt dictionary and the catalog (decoding at most the one object stream
/// that holds it), and loads the document only for a catalog with /AF (a wrapper of an
/// encrypted payload).
pub fn info_with(buf: &[u8], password: Option<&str>, limits: &Limits) -> Result<Info> {
    let pdf = Pdf::parse_with(buf, *limits)?;
    let (objects, objects_in_streams) = pdf.object_counts();
    let mut warnings = pdf.xref.notes.clone();
    let mut encryption = None;
    let mut handler = None;
    if crate::lwc::open::is_payload(&pdf) {
        // A payload out of its wrapper: described like the wrapper's.
        let mut w = WrapperInfo {
            in_wrapper: false,
            name: String::new(),
            payload_bytes: buf.len(),
            subtype: crate::lwc::HANDLER.into(),
            version: None,
            cipher: None,
            cfm: None,
            payload_version: None,
            p: None,
            needs_password: true,
            password: None,
        };
        describe_payload(&pdf, password, &mut w)?;
        return Ok(Info {
            version: pdf.version.clone(),
            catalog_version: None,
            objects,
            objects_in_streams,
            xref_sections: pdf.xref.sections,
            xref_stream: pdf.xref.xref_stream,
            xref_rebuilt: pdf.xref.rebuilt.clone(),
            encryption: None,
            wrapper: Some(w),
            warnings,
        });
    }
    if let Some(enc) = pdf.encrypt_dict()? {
        let id0 = pdf.id0();
        if id0.is_none() && enc.r <= 4 {
            warnings.push("the trailer has no /ID; the empty string is used as the file ID".into());
        }
        let empty = match pdf.authenticate(None) {
            Ok(x) => x,
            Err(Error::PasswordRequired) => None,
            Err(e) if password.is_none() => {
                warnings.push(e.to_string());
                None
            }
            Err(_) => None,
        };
        let needs_password = empty.is_none();
        let mut e = report(
            &enc,
            matches!(pdf.xref.trailer.get(b"Encrypt"), Some(Object::Dict(_))),
        );
        e.needs_password = needs_password;
        let opened = match password {
            Some(pw) => {
                let (h, a) = pdf.authenticate(Some(pw))?.ok_or(Error::PasswordRequired)?;
                e.password = Some(
                    match (a.user, a.owner) {
                        (true, true) => "user+owner",
                        (false, true) => "owner",
                        _ => "user",
                    }
                    .into(),
                );
                Some((h, a))
            }
            None => empty,
        };
        if let Some((h, a)) = opened {
            e.perms_ok = a.perms_ok;
            e.recovered_user_password = a.recovered_user_password.clone();
            if a.perms_ok == Some(false) {
                warnings.push(
                    "/Perms does not match /P and /EncryptMetadata: the permissions were altered"
                        .into(),
                );
            }
            handler = Some(h);
        }
        encryption = Some(e);
    }
    let catalog_version = catalog_version(&pdf, handler.as_ref(), encryption.is_some());
    let wrapper = if encryption.is_none() {
        wrapper_info(&pdf, password, limits)?
    } else {
        None
    };
    Ok(Info {
        version: pdf.version.clone(),
        catalog_version,
        objects,
        objects_in_streams,
        xref_sections: pdf.xref.sections,
        xref_stream: pdf.xref.xref_stream,
        xref_rebuilt: pdf.xref.rebuilt.clone(),
        encryption,
        wrapper,
        warnings,
    })
}

/// Describes the encrypted payload of a wrapper document; `None` for other documents.
fn wrapper_info(
    pdf: &Pdf<'_>,
    password: Option<&str>,
    limits: &Limits,
) -> Result<Option<WrapperInfo>> {
    // Cheap test first: only a catalog with /AF can be a wrapper.
    let has_af = match pdf.xref.trailer.get(b"Root") {
        Some(Object::Ref(n, g)) => pdf
            .top_object((*n, *g))
            .ok()
            .and_then(|c| c.dict().map(|d| d.get(b"AF").is_some()))
            .unwrap_or(true),
        _ => false,
    };
    if !has_af {
        return Ok(None);
    }
    let Ok(doc) = pdf.load(None) else {
        return Ok(None);
    };
    let Some(pl) = crate::wrapper::find(&doc, limits)? else {
        return Ok(None);
    };
    let mut w = WrapperInfo {
        in_wrapper: true,
        name: pl.name.clone(),
        payload_bytes: pl.bytes.len(),
        subtype: pl.subtype.clone(),
        version: pl.version.clone(),
        cipher: None,
        cfm: None,
        payload_version: None,
        p: None,
        needs_password: true,
        password: None,
    };
    if pl.subtype != crate::lwc::HANDLER {
        return Ok(Some(w));
    }
    let inner = Pdf::parse_with(&pl.bytes, *limits)?;
    describe_payload(&inner, password, &mut w)?;
    Ok(Some(w))
}

/// Fills `w` from an LWC payload: cipher, version, whether a password is needed and which
/// one `password` is (a wrong one is an error).
fn describe_payload(inner: &Pdf<'_>, password: Option<&str>, w: &mut WrapperInfo) -> Result<()> {
    w.payload_version = Some(inner.version.clone());
    let (d, _) = crate::lwc::open::encrypt_dict(inner)?;
    w.cipher = Some(d.cipher.name().into());
    w.cfm = Some(d.cipher.cfm().into());
    w.p = Some(d.p);
    let id = crate::lwc::keys::id_bytes(&inner.xref.trailer);
    w.needs_password = crate::lwc::keys::LwcKeys::open(&d, id.clone(), "").is_err();
    if let Some(pw) = password {
        let (_, a) = crate::lwc::keys::LwcKeys::open(&d, id, pw)?;
        w.password = Some(
            match (a.user, a.owner) {
                (true, true) => "user+owner",
                (false, true) => "owner",
                _ => "user",
            }
            .into(),
        );
    }
    Ok(())
}

/// The catalog's /Version (a name, never encrypted), if the catalog is readable.
fn catalog_version(pdf: &Pdf<'_>, handler: Option<&Handler>, encrypted: bool) -> Option<String> {
    let Some(Object::Ref(n, g)) = pdf.xref.trailer.get(b"Root") else {
        return None;
    };
    let cat = match pdf.top_object((*n, *g)) {
        Ok(o) => o,
        // In an object stream: that stream alone is decoded.
        Err(_) if !encrypted || handler.is_some() => pdf.compressed_object(*n, handler).ok()?,
        Err(_) => return None,
    };
    cat.dict()?
        .name(b"Version")
        .map(|v| String::from_utf8_lossy(v).into_owned())
}

fn report(e: &EncryptDict, direct: bool) -> EncryptionInfo {
    let v4 = e.v >= 4;
    EncryptionInfo {
        v: e.v,
        r: e.r,
        length: if e.r >= 5 && !e.length_given {
            256
        } else {
            e.length_bits
        },
        filters: e
            .filters
            .values()
            .map(|f| FilterInfo {
                name: f.name.clone(),
                cfm: f.cfm.name().into(),
                length: f.length,
                auth_event: f.auth_event.clone(),
            })
            .collect(),
        stmf: v4.then(|| e.stmf.clone()),
        strf: v4.then(|| e.strf.clone()),
        eff: (v4 && e.eff_given).then(|| e.eff.clone()),
        p: e.p,
        permissions: permissions(e.p),
        encrypt_metadata: e.encrypt_metadata,
        direct,
        needs_password: true,
        password: None,
        perms_ok: None,
        recovered_user_password: None,
    }
}
