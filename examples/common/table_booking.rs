//! Forms from Rust types: `book_table` asks for a [`TableBooking`] (form schema generated at
//! compile time by `#[derive(mcp::Form)]`), and `cancel_booking` asks for a confirmation
//! before it deletes anything.

use std::sync::Mutex;

use mcp::{ElicitAction, InputRequired, ToolOutput};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where to sit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema, mcp::Form)]
#[serde(rename_all = "snake_case")]
pub enum Seating {
    /// Indoors
    Indoor,
    /// On the patio
    Patio,
}

/// A table booking, as the user fills it in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema, mcp::Form)]
pub struct TableBooking {
    /// Who the table is for
    pub name: String,
    /// How many people are coming
    pub guests: u8,
    /// Where to sit
    pub seating: Seating,
    /// Anything the kitchen should know
    pub notes: Option<String>,
}

/// The confirmation form of a cancellation.
#[derive(Clone, Debug, Deserialize, mcp::Form)]
pub struct Confirmation {
    /// Confirm the cancellation
    pub confirmed: bool,
}

/// The restaurant service.
#[derive(Debug, Default)]
pub struct Restaurant {
    bookings: Mutex<Vec<TableBooking>>,
}

impl Restaurant {
    fn bookings(&self) -> std::sync::MutexGuard<'_, Vec<TableBooking>> {
        self.bookings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[mcp::service(
    name = "restaurant",
    version = "1.0.0",
    instructions = "Table bookings.",
    session_mode = "stateful"
)]
impl Restaurant {
    /// Book a table: asks the user for the booking details with a form.
    pub async fn book_table(
        &self,
        context: mcp::Context,
    ) -> Result<ToolOutput<String>, mcp::ToolError> {
        if let Some(answer) = context.elicit_result("booking")
            && answer.action != ElicitAction::Accept
        {
            return Ok(ToolOutput::Done("No table was booked".to_owned()));
        }
        let ask = |message: &str| {
            InputRequired::new()
                .elicit(
                    "booking",
                    mcp::elicit_form(message, mcp::form_of::<TableBooking>()),
                )
                .into()
        };
        let Some(booking) = context.accepted_content::<TableBooking>("booking") else {
            return Ok(ask("Book a table"));
        };
        if !(1..=20).contains(&booking.guests) {
            return Ok(ask("Tables seat 1 to 20 guests. Book a table"));
        }
        let text = format!(
            "Booked a table for {} ({} guests, {})",
            booking.name,
            booking.guests,
            if booking.seating == Seating::Patio {
                "patio"
            } else {
                "indoor"
            }
        );
        self.bookings().push(booking);
        Ok(ToolOutput::Done(text))
    }

    /// Cancel the booking of `name`, after the user confirms.
    ///
    /// # Arguments
    ///
    /// * `name` - Who the booking is for
    pub async fn cancel_booking(
        &self,
        name: String,
        context: mcp::Context,
    ) -> Result<ToolOutput<String>, mcp::ToolError> {
        if !self.bookings().iter().any(|b| b.name == name) {
            return Err(mcp::ToolError::new(format!(
                "There is no booking for {name}"
            )));
        }
        let Some(answer) = context.elicit_result("confirm") else {
            let form = mcp::elicit_form(
                format!("Cancel the booking for {name}?"),
                mcp::form_of::<Confirmation>(),
            );
            return Ok(InputRequired::new().elicit("confirm", form).into());
        };
        let confirmed = answer.action == ElicitAction::Accept
            && context
                .accepted_content::<Confirmation>("confirm")
                .is_some_and(|c| c.confirmed);
        if !confirmed {
            return Ok(ToolOutput::Done(format!("Kept the booking for {name}")));
        }
        self.bookings().retain(|b| b.name != name);
        Ok(ToolOutput::Done(format!(
            "Cancelled the booking for {name}"
        )))
    }

    /// The bookings.
    pub fn list_bookings(&self) -> Vec<TableBooking> {
        self.bookings().clone()
    }
}
