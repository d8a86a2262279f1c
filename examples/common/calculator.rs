//! The seed's calculator: a basic service whose tools return scalars, with request metadata
//! as a runtime parameter and the three structured-output policies.

/// The calculator service.
#[derive(Clone, Copy, Debug, Default)]
pub struct Calculator;

#[mcp::service(
    name = "calculator",
    version = "2.0.0",
    protocol_mode = "auto",
    session_mode = "auto"
)]
impl Calculator {
    /// Add two numbers.
    ///
    /// # Arguments
    ///
    /// * `left` - The first addend
    /// * `right` - The second addend
    pub async fn add(
        &self,
        left: i64,
        right: i64,
        meta: Option<mcp::RequestMeta>,
    ) -> Result<i64, mcp::ToolError> {
        if let Some(id) = meta.as_ref().and_then(|m| m.get("requestId")) {
            tracing::debug!(request_id = %id, "add");
        }
        left.checked_add(right)
            .ok_or_else(|| mcp::ToolError::new("the sum overflows a 64-bit integer"))
    }

    /// Subtract `right` from `left`.
    pub fn subtract(&self, left: i64, right: i64) -> Result<i64, mcp::ToolError> {
        left.checked_sub(right)
            .ok_or_else(|| mcp::ToolError::new("the difference overflows a 64-bit integer"))
    }

    /// Divide two numbers.
    #[tool(annotations(read_only = true, idempotent = true))]
    pub fn divide(&self, dividend: f64, divisor: f64) -> Result<f64, mcp::ToolError> {
        if divisor == 0.0 {
            return Err(mcp::ToolError::new("cannot divide by zero"));
        }
        Ok(dividend / divisor)
    }

    /// Sum a list of numbers; the output schema is written by hand.
    #[tool(
        structured_output = true,
        output_schema = r#"{"type": "number", "description": "The sum of the values"}"#
    )]
    pub fn sum(&self, values: Vec<f64>) -> f64 {
        values.iter().sum()
    }

    /// Describe a number in words (text only).
    #[tool(structured_output = false)]
    pub fn describe(&self, value: i64) -> String {
        match value {
            0 => "zero".to_owned(),
            v if v < 0 => format!("minus {}", -v),
            v => format!("{v}"),
        }
    }
}
