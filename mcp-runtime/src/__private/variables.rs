//! Template variables of resource methods (the rule of MCP_312): how a variable's text is
//! read, decided by its type. A [`TemplateVariable`] (every `Deserialize` type) is read with
//! serde; a type that is not one but implements `FromStr`, or an `Option` of such a type, is
//! read with `str::parse`. The choice is a probe (autoref specialization on
//! `&&&&Probe<T>`), so an alias is read as the type it names.

use std::fmt::Display;
use std::marker::PhantomData;
use std::str::FromStr;

use super::Probe;
use super::tools::CallArgs;
use crate::error::ServerError;
use crate::schema::argument::TemplateVariable;

/// A variable read with serde ([`TemplateVariable`]).
pub struct Deserialized<T>(PhantomData<fn() -> T>);
/// A variable read with `FromStr`.
pub struct Parsed<T>(PhantomData<fn() -> T>);
/// An optional variable read with `FromStr`.
pub struct OptionalParsed<T>(PhantomData<fn() -> T>);
/// A type that cannot be a variable: its check function reports MCP_312, and its binding
/// (never run, since the crate does not compile) stays error-free.
pub struct NotAVariable<T>(PhantomData<fn() -> T>);

/// Probe level 1: [`TemplateVariable`] types.
pub trait DeserializedProbe {
    /// The tag.
    type Tag;
    /// The tag of this type.
    fn variable_tag(self) -> Self::Tag;
}
/// Probe level 2: `FromStr` types.
pub trait ParsedProbe {
    /// The tag.
    type Tag;
    /// The tag of this type.
    fn variable_tag(self) -> Self::Tag;
}
/// Probe level 3: `Option`s of `FromStr` types.
pub trait OptionalParsedProbe {
    /// The tag.
    type Tag;
    /// The tag of this type.
    fn variable_tag(self) -> Self::Tag;
}
/// Probe level 4: anything else.
pub trait NotAVariableProbe {
    /// The tag.
    type Tag;
    /// The tag of this type.
    fn variable_tag(self) -> Self::Tag;
}

impl<T: TemplateVariable> DeserializedProbe for &&&&Probe<T> {
    type Tag = Deserialized<T>;
    fn variable_tag(self) -> Deserialized<T> {
        Deserialized(PhantomData)
    }
}

impl<T: FromStr> ParsedProbe for &&&Probe<T>
where
    T::Err: Display,
{
    type Tag = Parsed<T>;
    fn variable_tag(self) -> Parsed<T> {
        Parsed(PhantomData)
    }
}

impl<T: FromStr> OptionalParsedProbe for &&Probe<Option<T>>
where
    T::Err: Display,
{
    type Tag = OptionalParsed<T>;
    fn variable_tag(self) -> OptionalParsed<T> {
        OptionalParsed(PhantomData)
    }
}

impl<T> NotAVariableProbe for &Probe<T> {
    type Tag = NotAVariable<T>;
    fn variable_tag(self) -> NotAVariable<T> {
        NotAVariable(PhantomData)
    }
}

fn parse<T: FromStr>(text: String) -> Result<T, String>
where
    T::Err: Display,
{
    text.parse().map_err(|e: T::Err| e.to_string())
}

fn parse_some<T: FromStr>(text: String) -> Result<Option<T>, String>
where
    T::Err: Display,
{
    parse(text).map(Some)
}

impl<T: TemplateVariable> Deserialized<T> {
    /// Binds variable `name` of the call.
    pub fn bind(&self, call: &mut CallArgs<'_>, name: &'static str) -> Result<T, ServerError> {
        call.variable(name, T::from_text)
    }
}

impl<T: FromStr> Parsed<T>
where
    T::Err: Display,
{
    /// Binds variable `name` of the call.
    pub fn bind(&self, call: &mut CallArgs<'_>, name: &'static str) -> Result<T, ServerError> {
        call.variable(name, parse::<T>)
    }
}

impl<T: FromStr> OptionalParsed<T>
where
    T::Err: Display,
{
    /// Binds variable `name` of the call.
    pub fn bind(
        &self,
        call: &mut CallArgs<'_>,
        name: &'static str,
    ) -> Result<Option<T>, ServerError> {
        call.variable(name, parse_some::<T>)
    }
}

impl<T> NotAVariable<T> {
    /// Never reached: the check function rejects the type.
    pub fn bind(&self, call: &mut CallArgs<'_>, name: &'static str) -> Result<T, ServerError> {
        let _ = (call, name);
        Err(ServerError::client_message("Internal error"))
    }
}

/// The type whose [`TemplateVariable`] implementation a variable's tag relies on: the
/// variable's own type when it is read with serde or cannot be read at all (MCP_312 then
/// names it), `String` when it is read with `FromStr`.
pub trait VariableRule {
    /// The type that must be a [`TemplateVariable`].
    type Required;
}

impl<T> VariableRule for Deserialized<T> {
    type Required = T;
}
impl<T> VariableRule for Parsed<T> {
    type Required = String;
}
impl<T> VariableRule for OptionalParsed<T> {
    type Required = String;
}
impl<T> VariableRule for NotAVariable<T> {
    type Required = T;
}

/// MCP_312 check, spanned on the variable's type.
pub fn assert_template_variable<K: VariableRule>(_: &K)
where
    K::Required: TemplateVariable,
{
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Celsius(i32);

    impl FromStr for Celsius {
        type Err = std::num::ParseIntError;
        fn from_str(s: &str) -> Result<Self, Self::Err> {
            s.trim_end_matches('C').parse().map(Celsius)
        }
    }

    // The four references are the probe's levels: generated code writes them all.
    #[allow(clippy::needless_borrow)]
    #[test]
    fn probes_pick_serde_then_from_str() {
        // Types that are both read with serde, as before `FromStr` was accepted.
        let _: Deserialized<u32> = (&&&&Probe::<u32>::NEW).variable_tag();
        let _: Deserialized<String> = (&&&&Probe::<String>::NEW).variable_tag();
        let _: Deserialized<Option<bool>> = (&&&&Probe::<Option<bool>>::NEW).variable_tag();
        let _: Parsed<Celsius> = (&&&&Probe::<Celsius>::NEW).variable_tag();
        let _: OptionalParsed<Celsius> = (&&&&Probe::<Option<Celsius>>::NEW).variable_tag();
        let _: NotAVariable<Vec<Celsius>> = (&&&&Probe::<Vec<Celsius>>::NEW).variable_tag();
        assert_eq!(parse::<Celsius>("21C".into()).map(|c| c.0), Ok(21));
        assert!(parse::<Celsius>("warm".into()).is_err());
        assert_eq!(
            parse_some::<Celsius>("3".into()).map(|c| c.map(|c| c.0)),
            Ok(Some(3))
        );
    }
}
