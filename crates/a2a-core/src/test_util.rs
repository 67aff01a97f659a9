//! Test helpers: an executor scripted with closures.

use std::sync::Arc;

use a2a_types::A2aError;
use async_trait::async_trait;
use futures::future::BoxFuture;

use crate::{AgentExecutor, EventSink, RequestContext};

type Script = Arc<
    dyn Fn(RequestContext, EventSink) -> BoxFuture<'static, Result<(), A2aError>> + Send + Sync,
>;

/// An [`AgentExecutor`] whose behaviour is given by closures, so each test
/// scripts its agent inline.
#[derive(Clone)]
pub struct ScriptedExecutor {
    execute: Script,
    cancel: Option<Script>,
}

impl std::fmt::Debug for ScriptedExecutor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedExecutor").finish_non_exhaustive()
    }
}

impl ScriptedExecutor {
    /// An executor running `execute` for every message.
    pub fn new<F, Fut>(execute: F) -> Self
    where
        F: Fn(RequestContext, EventSink) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<(), A2aError>> + Send + 'static,
    {
        Self {
            execute: Arc::new(move |c, e| Box::pin(execute(c, e))),
            cancel: None,
        }
    }

    /// Adds a `cancel` script (default: publish nothing).
    #[must_use]
    pub fn on_cancel<F, Fut>(mut self, cancel: F) -> Self
    where
        F: Fn(RequestContext, EventSink) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<(), A2aError>> + Send + 'static,
    {
        self.cancel = Some(Arc::new(move |c, e| Box::pin(cancel(c, e))));
        self
    }
}

#[async_trait]
impl AgentExecutor for ScriptedExecutor {
    async fn execute(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
        (self.execute)(ctx, events).await
    }

    async fn cancel(&self, ctx: RequestContext, events: EventSink) -> Result<(), A2aError> {
        match &self.cancel {
            Some(c) => c(ctx, events).await,
            None => Ok(()),
        }
    }
}
