//! `mrtr.elicit_params(params)`: an elicitation whose rmcp `ElicitRequestParams` are built
//! elsewhere (a helper that assembles the form from data). The form variant is
//! [`Mrtr::elicit_schema`] with its message and schema.

use rmcp::model::ElicitRequestParams;
use serde_json::{Map, Value};

use crate::ask::{Ask, Elicitation};
use crate::context::Mrtr;

impl Mrtr {
    /// Asks with rmcp's form `ElicitRequestParams` (its `_meta` is not sent: the request's own
    /// carries the capabilities). URL-mode params are refused before anything is sent (ask them
    /// with [`Mrtr::elicit_url`], whose answer has no content).
    pub fn elicit_params(
        &self,
        params: ElicitRequestParams,
    ) -> Ask<Elicitation<Map<String, Value>>> {
        match params {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => self.elicit_schema(message, requested_schema),
            _ => self.elicit_schema(
                "URL-mode elicitation params: ask with `mrtr.elicit_url(message, url)`",
                Value::Null,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{ElicitRequestParams, ElicitationSchema};
    use serde_json::{json, Value};

    use crate::ask::Elicitation;
    use crate::context::{IncomingRequest, Mrtr};
    use crate::error::MrtrError;
    use crate::testing::test_config;

    fn mrtr() -> Mrtr {
        Mrtr::new(
            IncomingRequest::call_tool("t", Value::Null),
            &test_config("s"),
        )
    }

    #[test]
    fn form_params_are_asked_with_their_message_and_schema() {
        let schema = ElicitationSchema::builder()
            .required_string("host")
            .build()
            .expect("schema");
        let ask = mrtr().elicit_params(ElicitRequestParams::FormElicitationParams {
            meta: None,
            message: "Which host?".into(),
            requested_schema: schema.clone(),
        });
        assert!(ask.check().is_ok(), "{:?}", ask.check());
        let params = &ask.input_request()["params"];
        assert_eq!(params["message"], "Which host?");
        assert_eq!(
            params["requestedSchema"],
            serde_json::to_value(&schema).unwrap()
        );
        let answer = json!({ "action": "accept", "content": { "host": "db-1" } });
        let Ok(Elicitation::Accept(content)) = ask.decode("k", &answer) else {
            panic!("accepted");
        };
        assert_eq!(content["host"], "db-1");
        let missing = json!({ "action": "accept", "content": {} });
        assert!(matches!(
            ask.decode("k", &missing),
            Err(MrtrError::InvalidAnswer { .. })
        ));
    }

    #[test]
    fn url_params_are_refused_before_sending() {
        let ask = mrtr().elicit_params(ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message: "Sign in".into(),
            url: "https://example.invalid/login".into(),
            elicitation_id: "e1".into(),
        });
        assert!(matches!(ask.check(), Err(MrtrError::Internal(_))));
    }
}
