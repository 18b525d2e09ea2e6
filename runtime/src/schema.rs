//! Turns a schemars schema into the flat `requestedSchema` a 2026-07-28 form elicitation allows:
//! `{"type":"object","properties":{..primitive..},"required":[..]}`.

use serde_json::{Map, Value};

const STRING_FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];

/// The flat schema of `T` and, when `T` cannot be expressed flat, why not.
pub(crate) fn flat_schema_for<T: schemars::JsonSchema>() -> (Value, Option<String>) {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
    });
    let generator = settings.into_generator();
    let root = generator.into_root_schema_for::<T>();
    flatten(&root.to_value(), std::any::type_name::<T>())
}

/// Why `schema` is not a valid flat requestedSchema, if it is not.
pub(crate) fn flatness_problem(schema: &Value) -> Option<String> {
    let object = schema.as_object()?;
    if object.get("type") != Some(&Value::from("object")) {
        return Some("a requestedSchema must have type object".into());
    }
    let properties = object.get("properties").and_then(Value::as_object)?;
    for (name, property) in properties {
        if let Err(reason) = check_primitive(property) {
            return Some(format!("form field `{name}` {reason}"));
        }
    }
    None
}

fn flatten(schema: &Value, type_name: &str) -> (Value, Option<String>) {
    let mut out = Map::new();
    out.insert("type".into(), Value::from("object"));
    let Some(object) = schema.as_object() else {
        return (
            Value::Object(out),
            Some(format!("{type_name} has no object schema")),
        );
    };
    if object.get("type") != Some(&Value::from("object")) {
        return (
            Value::Object(out),
            Some(format!(
                "{type_name} is not a struct with named fields; elicitation forms are flat objects"
            )),
        );
    }
    let mut problem = None;
    let mut properties = Map::new();
    if let Some(source) = object.get("properties").and_then(Value::as_object) {
        for (name, property) in source {
            let flat = primitive(property);
            if let Err(reason) = check_primitive(&flat) {
                problem.get_or_insert_with(|| format!("{type_name}: form field `{name}` {reason}"));
            }
            properties.insert(name.clone(), flat);
        }
    }
    out.insert("properties".into(), Value::Object(properties));
    if let Some(required) = object.get("required").and_then(Value::as_array) {
        if !required.is_empty() {
            out.insert("required".into(), Value::Array(required.clone()));
        }
    }
    (Value::Object(out), problem)
}

/// Reduces one property schema to the keys a primitive schema definition may carry.
fn primitive(property: &Value) -> Value {
    let Some(object) = property.as_object() else {
        return property.clone();
    };
    // `Option<X>` arrives as `anyOf: [X, {"type":"null"}]` or as `type: [X, "null"]`.
    for union in ["anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = object.get(union) {
            let non_null: Vec<&Value> = members.iter().filter(|m| !is_null_schema(m)).collect();
            if non_null.len() == 1 && non_null.len() < members.len() {
                let mut inner = primitive(non_null[0]);
                carry_annotations(object, &mut inner);
                return inner;
            }
        }
    }
    let mut out = Map::new();
    let ty = match object.get("type") {
        Some(Value::Array(types)) => {
            let non_null: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
            if non_null.len() == 1 {
                Some(non_null[0].clone())
            } else {
                Some(Value::Array(types.clone()))
            }
        }
        other => other.cloned(),
    };
    if let Some(ty) = &ty {
        out.insert("type".into(), ty.clone());
    }
    let allowed: &[&str] = match ty.as_ref().and_then(Value::as_str) {
        Some("string") => &[
            "title",
            "description",
            "minLength",
            "maxLength",
            "format",
            "default",
            "enum",
            "enumNames",
            "oneOf",
        ],
        Some("number") | Some("integer") => {
            &["title", "description", "minimum", "maximum", "default"]
        }
        Some("boolean") => &["title", "description", "default"],
        Some("array") => &[
            "title",
            "description",
            "minItems",
            "maxItems",
            "items",
            "default",
        ],
        _ => &[
            "title",
            "description",
            "enum",
            "oneOf",
            "anyOf",
            "properties",
            "items",
            "default",
        ],
    };
    for key in allowed {
        if let Some(value) = object.get(*key) {
            out.insert((*key).to_string(), value.clone());
        }
    }
    if let Some(format) = out.get("format").and_then(Value::as_str) {
        if !STRING_FORMATS.contains(&format) {
            out.remove("format");
        }
    }
    // Integer bounds that schemars adds for unsigned types are fine; drop nulls from enums.
    if let Some(Value::Array(values)) = out.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if ty.is_none() && (out.contains_key("enum") || out.contains_key("oneOf")) {
        out.insert("type".into(), Value::from("string"));
    }
    Value::Object(out)
}

fn carry_annotations(from: &Map<String, Value>, into: &mut Value) {
    if let Some(into) = into.as_object_mut() {
        for key in ["title", "description", "default"] {
            if let Some(value) = from.get(key) {
                into.entry(key.to_string()).or_insert_with(|| value.clone());
            }
        }
    }
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type") == Some(&Value::from("null")) || schema.get("const") == Some(&Value::Null)
}

fn check_primitive(property: &Value) -> Result<(), String> {
    let ty = property.get("type").and_then(Value::as_str);
    match ty {
        Some("string") => {
            if let Some(Value::Array(options)) = property.get("oneOf") {
                if !options
                    .iter()
                    .all(|o| o.get("const").is_some_and(Value::is_string))
                {
                    return Err("has a string choice that is not a plain constant".into());
                }
            }
            Ok(())
        }
        Some("number") | Some("integer") | Some("boolean") => Ok(()),
        Some("array") => {
            let items = property.get("items");
            let is_enum = items.is_some_and(|items| {
                items.get("enum").is_some()
                    || items.get("anyOf").is_some_and(|members| {
                        members
                            .as_array()
                            .is_some_and(|m| m.iter().all(|o| o.get("const").is_some()))
                    })
            });
            if is_enum {
                Ok(())
            } else {
                Err("is a list that is not a multi-select of string choices".into())
            }
        }
        Some(other) => Err(format!(
            "has type `{other}`; forms allow only string, number, integer, boolean and enums"
        )),
        None => Err(
            "has no single primitive type (nested or union types are not allowed in forms)".into(),
        ),
    }
}
