//! Messages and their parts.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::Metadata;

/// Who sent a [`Message`]: JSON `"user"` or `"agent"` (proto `ROLE_USER`,
/// `ROLE_AGENT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Sent by the client (the user side).
    User,
    /// Sent by the agent (the server side).
    Agent,
}

/// One turn of communication between a client and an agent (`kind: "message"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename = "message", rename_all = "camelCase")]
pub struct Message {
    /// Who sent the message.
    pub role: Role,
    /// The content, at least one part.
    pub parts: Vec<Part>,
    /// Unique id of the message, chosen by its sender.
    pub message_id: String,
    /// The task this message belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The context (conversation) this message belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_id: Option<String>,
    /// Ids of other tasks this message refers to (JSON-RPC only; not in the proto).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_task_ids: Option<Vec<String>>,
    /// URIs of the extensions that contributed to this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Vec<String>>,
    /// Extension metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

impl Message {
    /// A message with the given role, id and parts; every optional field empty.
    #[must_use]
    pub fn new(role: Role, message_id: impl Into<String>, parts: Vec<Part>) -> Self {
        Self {
            role,
            parts,
            message_id: message_id.into(),
            task_id: None,
            context_id: None,
            reference_task_ids: None,
            extensions: None,
            metadata: None,
        }
    }

    /// A user message with one text part.
    #[must_use]
    pub fn user_text(message_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self::new(Role::User, message_id, vec![Part::text(text)])
    }

    /// An agent message with one text part.
    #[must_use]
    pub fn agent_text(message_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self::new(Role::Agent, message_id, vec![Part::text(text)])
    }

    /// The concatenated text of all text parts.
    #[must_use]
    pub fn text(&self) -> String {
        crate::parts_text(&self.parts)
    }
}

/// A piece of content: text, a file or structured data (`kind` `"text"`,
/// `"file"` or `"data"`).
///
/// Deserialisation is lenient in one way: a part without `kind` is accepted
/// when exactly one of `text`, `file` or `data` identifies it (as the Python
/// SDK does). Serialisation always writes `kind`.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// `kind: "text"`.
    Text(TextPart),
    /// `kind: "file"`.
    File(FilePart),
    /// `kind: "data"`.
    Data(DataPart),
}

impl Part {
    /// A text part.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextPart {
            text: text.into(),
            metadata: None,
        })
    }

    /// A data part.
    #[must_use]
    pub fn data(data: serde_json::Map<String, Value>) -> Self {
        Self::Data(DataPart {
            data,
            metadata: None,
        })
    }

    /// The part's metadata.
    #[must_use]
    pub fn metadata(&self) -> Option<&Metadata> {
        match self {
            Self::Text(p) => p.metadata.as_ref(),
            Self::File(p) => p.metadata.as_ref(),
            Self::Data(p) => p.metadata.as_ref(),
        }
    }
}

/// The text content of a [`Part::Text`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TextPart {
    /// The text.
    pub text: String,
    /// Part metadata.
    pub metadata: Option<Metadata>,
}

/// The content of a [`Part::File`].
#[derive(Debug, Clone, PartialEq)]
pub struct FilePart {
    /// The file, by value or by reference.
    pub file: FileContent,
    /// Part metadata.
    pub metadata: Option<Metadata>,
}

/// The structured content of a [`Part::Data`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DataPart {
    /// A JSON object.
    pub data: serde_json::Map<String, Value>,
    /// Part metadata.
    pub metadata: Option<Metadata>,
}

/// A file carried by value (`FileWithBytes`) or by reference (`FileWithUri`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FileContent {
    /// `{"bytes": base64, "name"?, "mimeType"?}`.
    Bytes(FileWithBytes),
    /// `{"uri": …, "name"?, "mimeType"?}`.
    Uri(FileWithUri),
}

impl FileContent {
    /// The file name, if given.
    #[must_use]
    pub fn name(&self) -> Option<&str> {
        match self {
            Self::Bytes(f) => f.name.as_deref(),
            Self::Uri(f) => f.name.as_deref(),
        }
    }

    /// The MIME type, if given.
    #[must_use]
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            Self::Bytes(f) => f.mime_type.as_deref(),
            Self::Uri(f) => f.mime_type.as_deref(),
        }
    }
}

/// A file whose content is inline, base64-encoded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct FileWithBytes {
    /// The base64-encoded content.
    pub bytes: String,
    /// The file name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// A file given by URI.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct FileWithUri {
    /// Where the content can be fetched.
    pub uri: String,
    /// The file name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum PartOut<'a> {
    Text {
        text: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        metadata: Option<&'a Metadata>,
    },
    File {
        file: &'a FileContent,
        #[serde(skip_serializing_if = "Option::is_none")]
        metadata: Option<&'a Metadata>,
    },
    Data {
        data: &'a serde_json::Map<String, Value>,
        #[serde(skip_serializing_if = "Option::is_none")]
        metadata: Option<&'a Metadata>,
    },
}

impl Serialize for Part {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Text(p) => PartOut::Text {
                text: &p.text,
                metadata: p.metadata.as_ref(),
            },
            Self::File(p) => PartOut::File {
                file: &p.file,
                metadata: p.metadata.as_ref(),
            },
            Self::Data(p) => PartOut::Data {
                data: &p.data,
                metadata: p.metadata.as_ref(),
            },
        }
        .serialize(s)
    }
}

#[derive(Deserialize)]
struct PartIn {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    file: Option<FileContent>,
    #[serde(default)]
    data: Option<serde_json::Map<String, Value>>,
    #[serde(default)]
    metadata: Option<Metadata>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileIn {
    #[serde(default)]
    bytes: Option<String>,
    #[serde(default)]
    uri: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    mime_type: Option<String>,
}

impl<'de> Deserialize<'de> for Part {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let p = PartIn::deserialize(d)?;
        let kind = match p.kind.as_deref() {
            Some(k) => k,
            None => match (&p.text, &p.file, &p.data) {
                (Some(_), None, None) => "text",
                (None, Some(_), None) => "file",
                (None, None, Some(_)) => "data",
                _ => {
                    return Err(D::Error::custom(
                        "part has no `kind` and no single one of `text`, `file`, `data`",
                    ));
                }
            },
        };
        match kind {
            "text" => {
                let text = p.text.ok_or_else(|| D::Error::missing_field("text"))?;
                Ok(Self::Text(TextPart {
                    text,
                    metadata: p.metadata,
                }))
            }
            "file" => {
                let file = p.file.ok_or_else(|| D::Error::missing_field("file"))?;
                Ok(Self::File(FilePart {
                    file,
                    metadata: p.metadata,
                }))
            }
            "data" => {
                let data = p.data.ok_or_else(|| D::Error::missing_field("data"))?;
                Ok(Self::Data(DataPart {
                    data,
                    metadata: p.metadata,
                }))
            }
            other => Err(D::Error::unknown_variant(other, &["text", "file", "data"])),
        }
    }
}

impl<'de> Deserialize<'de> for FileContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let f = FileIn::deserialize(d)?;
        match (f.bytes, f.uri) {
            (Some(bytes), None) => Ok(Self::Bytes(FileWithBytes {
                bytes,
                name: f.name,
                mime_type: f.mime_type,
            })),
            (None, Some(uri)) => Ok(Self::Uri(FileWithUri {
                uri,
                name: f.name,
                mime_type: f.mime_type,
            })),
            (Some(_), Some(_)) => Err(D::Error::custom(
                "a file has both `bytes` and `uri`; exactly one is allowed",
            )),
            (None, None) => Err(D::Error::custom("a file needs `bytes` or `uri`")),
        }
    }
}
