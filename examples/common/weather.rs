//! The seed's weather server as a basic service: tools generated from the methods of an
//! annotated impl block, descriptions from doc comments, a header argument, structured
//! output, and both protocol eras (AUTO).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Current conditions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Weather {
    /// Where.
    pub location: String,
    /// Degrees Celsius.
    pub temperature: f64,
    /// Sky conditions.
    pub condition: String,
}

/// One day of a forecast.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DayForecast {
    /// Day number, 1 = tomorrow.
    pub day: u8,
    /// Highest temperature, Celsius.
    pub high: f64,
    /// Lowest temperature, Celsius.
    pub low: f64,
    /// Sky conditions.
    pub condition: String,
}

/// A multi-day forecast.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WeatherForecast {
    /// Where.
    pub location: String,
    /// The days, in order.
    pub days: Vec<DayForecast>,
}

const CONDITIONS: [&str; 4] = ["Sunny", "Cloudy", "Rainy", "Windy"];

/// A stable pseudo-random number from a name, so answers are deterministic.
fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn weather_of(location: &str) -> Weather {
    let s = seed(location);
    Weather {
        location: location.to_owned(),
        temperature: 5.0 + (s % 250) as f64 / 10.0,
        condition: CONDITIONS[(s / 250 % 4) as usize].to_owned(),
    }
}

/// The weather service.
#[derive(Clone, Copy, Debug, Default)]
pub struct WeatherService;

#[mcp::service(
    name = "weather",
    version = "1.0.0",
    instructions = "Weather conditions and forecasts for any city.",
    protocol_mode = "auto",
    session_mode = "auto",
    cache(list_tools(ttl_ms = 60000, scope = "public")),
    client
)]
impl WeatherService {
    /// Get current weather conditions for a location.
    ///
    /// # Arguments
    ///
    /// * `city` - The city to report on
    pub async fn get_current_weather(&self, city: String) -> Result<Weather, mcp::ToolError> {
        if city.trim().is_empty() {
            return Err(mcp::ToolError::new("The city name is empty"));
        }
        Ok(weather_of(&city))
    }

    /// Get a weather forecast for multiple days.
    ///
    /// # Arguments
    ///
    /// * `location` - The location for which to retrieve the weather forecast
    /// * `days` - Number of days to include in the forecast (1 to 7)
    pub async fn get_weather_forecast(
        &self,
        location: String,
        days: u8,
    ) -> Result<WeatherForecast, mcp::ToolError> {
        if !(1..=7).contains(&days) {
            return Err(mcp::ToolError::new(format!(
                "days must be between 1 and 7, not {days}"
            )));
        }
        let base = weather_of(&location);
        let days = (1..=days)
            .map(|day| {
                let s = seed(&format!("{location}/{day}"));
                DayForecast {
                    day,
                    high: base.temperature + (s % 60) as f64 / 10.0,
                    low: base.temperature - (s / 60 % 60) as f64 / 10.0,
                    condition: CONDITIONS[(s / 3600 % 4) as usize].to_owned(),
                }
            })
            .collect();
        Ok(WeatherForecast { location, days })
    }

    /// Current weather of a city in a region. The region travels in the `Mcp-Param-Region`
    /// header too, so gateways can route on it.
    ///
    /// # Arguments
    ///
    /// * `region` - The region, such as `eu-west`
    /// * `city` - The city
    #[tool(
        structured_output = true,
        annotations(read_only = true, open_world = false)
    )]
    pub fn regional_weather(
        &self,
        #[argument(header = "Region")] region: String,
        city: String,
    ) -> Weather {
        weather_of(&format!("{region}/{city}"))
    }
}
