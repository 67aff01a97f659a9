//! The agents this crate ships, and [`Agent`]: what the server serves (a
//! description for the card plus an [`AgentExecutor`]).
//!
//! | agent | `--agent` | what |
//! |---|---|---|
//! | [`demo::DemoAgent`] | `demo` | skills `echo` (streams the text back in chunks), `interview` (asks a question), `countdown N` (a long, cancellable task) |
//! | [`conformance::ConformanceAgent`] | `conformance` | behaves like the reference agent of the public A2A conformance suite (a2a-tck): tasks stay `working` until canceled |
//! | [`echo::EchoAgent`] | `echo` | skill `echo`: answers at once with a completed task holding one artifact with the text (or a single message with metadata `"reply": "message"`); for benchmarks |

use std::sync::Arc;

use a2a_core::{AgentExecutor, RequestContext};
use a2a_types::AgentSkill;

pub mod conformance;
pub mod demo;
pub mod echo;

/// `"reply": "message"` in the request's (`MessageSendParams.metadata`) or
/// the message's metadata: the caller wants a single `Message` back.
fn wants_message_reply(ctx: &RequestContext) -> bool {
    let message = ctx.message.as_ref().and_then(|m| m.metadata.as_ref());
    [ctx.metadata.as_ref(), message]
        .into_iter()
        .flatten()
        .any(|m| m.get("reply").and_then(|v| v.as_str()) == Some("message"))
}

/// The media types the shipped agents accept besides text and JSON.
pub const FILE_INPUT_MODES: &[&str] = &[
    "application/octet-stream",
    "application/pdf",
    "image/png",
    "image/jpeg",
];

/// What the agent card says about an agent, apart from its interfaces
/// (which the server fills in from its listeners, see
/// [`build_card`](crate::build_card)).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AgentDescription {
    /// Human-readable name.
    pub name: String,
    /// What the agent does.
    pub description: String,
    /// The agent's own version.
    pub version: String,
    /// What the agent can do.
    pub skills: Vec<AgentSkill>,
    /// Default input media types (default: `text/plain`, `application/json`).
    pub default_input_modes: Vec<String>,
    /// Default output media types (default: `text/plain`, `application/json`).
    pub default_output_modes: Vec<String>,
}

impl AgentDescription {
    /// A description with no skills and text/JSON input and output modes.
    #[must_use]
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        version: impl Into<String>,
    ) -> Self {
        let modes = vec!["text/plain".to_owned(), "application/json".to_owned()];
        Self {
            name: name.into(),
            description: description.into(),
            version: version.into(),
            skills: Vec::new(),
            default_input_modes: modes.clone(),
            default_output_modes: modes,
        }
    }

    /// Adds a skill.
    #[must_use]
    pub fn skill(mut self, skill: AgentSkill) -> Self {
        self.skills.push(skill);
        self
    }

    /// Adds input media types (e.g. file types) to the defaults.
    #[must_use]
    pub fn input_modes<I, S>(mut self, modes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        for m in modes {
            let m = m.into();
            if !self.default_input_modes.contains(&m) {
                self.default_input_modes.push(m);
            }
        }
        self
    }
}

/// A skill with the given id, name, description, tags and example prompts.
#[must_use]
pub fn skill(
    id: &str,
    name: &str,
    description: &str,
    tags: &[&str],
    examples: &[&str],
) -> AgentSkill {
    AgentSkill {
        id: id.to_owned(),
        name: name.to_owned(),
        description: description.to_owned(),
        tags: tags.iter().map(|s| (*s).to_owned()).collect(),
        examples: (!examples.is_empty())
            .then(|| examples.iter().map(|s| (*s).to_owned()).collect()),
        input_modes: None,
        output_modes: None,
        security: None,
    }
}

/// An agent to serve: the description its card is built from, and its
/// executor.
#[derive(Clone)]
pub struct Agent {
    /// What the card says about the agent.
    pub description: AgentDescription,
    /// The agent's logic.
    pub executor: Arc<dyn AgentExecutor>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// An agent with the given description and executor.
    pub fn new(description: AgentDescription, executor: impl AgentExecutor) -> Self {
        Self {
            description,
            executor: Arc::new(executor),
        }
    }

    /// The demo agent ([`demo::DemoAgent`]).
    #[must_use]
    pub fn demo() -> Self {
        Self::new(demo::description(), demo::DemoAgent)
    }

    /// The conformance agent ([`conformance::ConformanceAgent`]).
    #[must_use]
    pub fn conformance() -> Self {
        Self::new(conformance::description(), conformance::ConformanceAgent)
    }

    /// The echo agent ([`echo::EchoAgent`]).
    #[must_use]
    pub fn echo() -> Self {
        Self::new(echo::description(), echo::EchoAgent)
    }
}

/// The shipped agents, by their `--agent` name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum AgentKind {
    /// Echo, interview and countdown skills.
    #[default]
    Demo,
    /// The a2a-tck reference behaviour.
    Conformance,
    /// A completed task with the text as its one artifact, at once.
    Echo,
}

impl AgentKind {
    /// The agent of this kind.
    #[must_use]
    pub fn agent(self) -> Agent {
        match self {
            Self::Demo => Agent::demo(),
            Self::Conformance => Agent::conformance(),
            Self::Echo => Agent::echo(),
        }
    }
}
