//! Form elicitation with a schema built at run time (`mrtr.elicit_schema(message, schema)`):
//! the accepted content comes back as a JSON object, checked against the schema the way the
//! typed ask checks it against its type.

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::ask::{decode_form, elicit_action, invalid, Ask, Elicitation};
use crate::context::Mrtr;
use crate::error::MrtrError;

impl Mrtr {
    /// Asks the user to fill in a form whose flat `requestedSchema` is known only at run time
    /// (built from data, read from a tool argument, or an SDK's schema type such as rmcp's
    /// `ElicitationSchema`). Same rules as [`Mrtr::elicit`]: a schema that is not a flat object
    /// of primitive fields is refused before anything is sent; accepted content that misses a
    /// required field or has a field of the wrong type is `InvalidAnswer`; decline and cancel
    /// are values. Fields the schema does not declare are dropped.
    pub fn elicit_schema(
        &self,
        message: impl Into<String>,
        schema: impl Serialize,
    ) -> Ask<Elicitation<Map<String, Value>>> {
        let (schema, problem) = match serde_json::to_value(&schema) {
            Ok(schema) => {
                let problem = crate::schema::flatness_problem(&schema).or_else(|| {
                    (!schema.get("properties").is_some_and(Value::is_object))
                        .then(|| "a requestedSchema needs `properties`".to_string())
                });
                (schema, problem)
            }
            Err(e) => (Value::Null, Some(format!("serializing the schema: {e}"))),
        };
        Ask::new(
            json!({
                "method": "elicitation/create",
                "params": { "mode": "form", "message": message.into(), "requestedSchema": schema }
            }),
            json!({ "elicitation": {} }),
            decode_form::<Map<String, Value>>,
        )
        .with_problem(problem)
        .with_conform(conform_answer)
    }
}

/// An accepted answer's content checked against the schema that was sent (the request's
/// `requestedSchema`), keeping only the declared fields; decline and cancel pass unchanged.
fn conform_answer(request: &Value, key: &str, answer: &Value) -> Result<Value, MrtrError> {
    let ("accept", content) = elicit_action(key, answer)? else {
        return Ok(answer.clone());
    };
    let content = match content {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map.clone(),
        Some(_) => return Err(invalid(key, "`content` must be an object")),
    };
    let schema = &request["params"]["requestedSchema"];
    let content = conform(schema, content).map_err(|e| {
        invalid(
            key,
            format!("content does not match the requested form: {e}"),
        )
    })?;
    Ok(json!({ "action": "accept", "content": content }))
}

/// The declared fields of `content`, each checked against its property schema.
fn conform(schema: &Value, content: Map<String, Value>) -> Result<Map<String, Value>, String> {
    let empty = Map::new();
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required = schema.get("required").and_then(Value::as_array);
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        if content.get(name).is_none_or(Value::is_null) {
            return Err(format!("missing field `{name}`"));
        }
    }
    let mut out = Map::new();
    for (name, value) in content {
        let Some(property) = properties.get(&name) else {
            continue;
        };
        if value.is_null() {
            continue;
        }
        check(property, &value).map_err(|why| format!("field `{name}` {why}"))?;
        out.insert(name, value);
    }
    Ok(out)
}

fn check(property: &Value, value: &Value) -> Result<(), String> {
    let number = |key: &str| property.get(key).and_then(Value::as_f64);
    match property.get("type").and_then(Value::as_str) {
        Some("string") => {
            let text = value.as_str().ok_or("must be a string")?;
            if !allowed(property, value) {
                return Err(format!("`{text}` is not one of the choices"));
            }
            let length = text.chars().count() as f64;
            if number("minLength").is_some_and(|min| length < min)
                || number("maxLength").is_some_and(|max| length > max)
            {
                return Err("has a length outside the allowed range".into());
            }
            Ok(())
        }
        Some(ty @ ("number" | "integer")) => {
            let n = value.as_f64().ok_or("must be a number")?;
            if ty == "integer" && !(value.is_i64() || value.is_u64()) {
                return Err("must be an integer".into());
            }
            if number("minimum").is_some_and(|min| n < min)
                || number("maximum").is_some_and(|max| n > max)
            {
                return Err("is outside the allowed range".into());
            }
            Ok(())
        }
        Some("boolean") => value
            .as_bool()
            .map(|_| ())
            .ok_or("must be a boolean".into()),
        Some("array") => {
            let items = value.as_array().ok_or("must be a list")?;
            let choices = property.get("items").unwrap_or(&Value::Null);
            if let Some(bad) = items.iter().find(|item| !allowed(choices, item)) {
                return Err(format!("has `{bad}`, which is not one of the choices"));
            }
            let count = items.len() as f64;
            if number("minItems").is_some_and(|min| count < min)
                || number("maxItems").is_some_and(|max| count > max)
            {
                return Err("has a number of choices outside the allowed range".into());
            }
            Ok(())
        }
        // The flatness check refused every other type before the ask was sent.
        _ => Ok(()),
    }
}

/// `value` is one of the schema's choices (`enum`, or `oneOf` / `anyOf` constants), or the
/// schema has none.
fn allowed(schema: &Value, value: &Value) -> bool {
    if let Some(Value::Array(choices)) = schema.get("enum") {
        return choices.contains(value);
    }
    for union in ["oneOf", "anyOf"] {
        if let Some(Value::Array(options)) = schema.get(union) {
            return options.iter().any(|o| o.get("const") == Some(value));
        }
    }
    true
}

#[cfg(test)]
mod tests {
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

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": { "type": "string", "minLength": 2 },
                "size": { "type": "integer", "minimum": 1, "maximum": 9 },
                "tier": { "type": "string", "enum": ["gold", "free"] },
                "tags": { "type": "array", "items": { "type": "string", "enum": ["a", "b"] } },
                "sure": { "type": "boolean" }
            },
            "required": ["name"]
        })
    }

    fn accept(content: Value) -> Value {
        json!({ "action": "accept", "content": content })
    }

    #[test]
    fn the_schema_is_sent_as_built_and_valid_content_comes_back_as_an_object() {
        let ask = mrtr().elicit_schema("Describe it", schema());
        assert!(ask.check().is_ok(), "{:?}", ask.check());
        assert_eq!(ask.input_request()["params"]["requestedSchema"], schema());
        assert_eq!(ask.input_request()["params"]["message"], "Describe it");
        let content = json!({ "name": "db", "size": 3, "tier": "gold", "tags": ["a"], "sure": true, "extra": 1 });
        let Ok(Elicitation::Accept(map)) = ask.decode("k", &accept(content)) else {
            panic!("accepted content decodes");
        };
        assert_eq!(
            Value::Object(map),
            json!({ "name": "db", "size": 3, "tier": "gold", "tags": ["a"], "sure": true }),
            "declared fields kept, undeclared dropped"
        );
    }

    #[test]
    fn content_that_breaks_the_schema_is_invalid_answer_naming_the_field() {
        let ask = mrtr().elicit_schema("Describe it", schema());
        for (content, field) in [
            (json!({}), "name"),
            (json!({ "name": 7 }), "name"),
            (json!({ "name": "x" }), "name"),
            (json!({ "name": "db", "size": 2.5 }), "size"),
            (json!({ "name": "db", "size": 10 }), "size"),
            (json!({ "name": "db", "tier": "silver" }), "tier"),
            (json!({ "name": "db", "tags": ["c"] }), "tags"),
            (json!({ "name": "db", "sure": "yes" }), "sure"),
        ] {
            match ask.decode("k", &accept(content.clone())) {
                Err(MrtrError::InvalidAnswer { key, reason }) => {
                    assert_eq!(key, "k");
                    assert!(
                        reason.contains(&format!("`{field}`")),
                        "{content}: {reason}"
                    );
                }
                other => panic!("{content}: expected InvalidAnswer, got {other:?}"),
            }
        }
    }

    #[test]
    fn decline_and_cancel_are_values() {
        let ask = mrtr().elicit_schema("Describe it", schema());
        assert_eq!(
            ask.decode("k", &json!({ "action": "decline" })),
            Ok(Elicitation::Decline)
        );
        assert_eq!(
            ask.decode("k", &json!({ "action": "cancel" })),
            Ok(Elicitation::Cancel)
        );
    }

    #[test]
    fn a_schema_that_is_not_a_flat_form_is_refused_before_sending() {
        for bad in [
            json!({ "type": "object", "properties": { "n": { "type": "object" } } }),
            json!({ "type": "array" }),
            json!({ "type": "object" }),
            json!("name"),
        ] {
            let ask = mrtr().elicit_schema("Describe it", bad.clone());
            assert!(
                matches!(ask.check(), Err(MrtrError::Internal(_))),
                "{bad} was accepted"
            );
        }
    }
}
