#pragma once
// Numbers and records as JSON.
#include <cmath>
#include <iostream>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/outputs/diagnostics_record.hpp"
#include "io/outputs/event_record.hpp"

namespace backsweep::apps {

// JSON has no Inf or NaN: such a number is written as null.
inline nlohmann::json finite_or_null(double x) {
  return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr);
}

// A record as nested objects: "bytes_written/memory" is {"bytes_written": {"memory": ...}}.
inline nlohmann::json record_json(const std::vector<DiagnosticEntry>& record) {
  nlohmann::json j = nlohmann::json::object();
  for (const DiagnosticEntry& entry : record) {
    const nlohmann::json value = std::visit(
        [](const auto& v) -> nlohmann::json {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, std::monostate>) return nullptr;
          else if constexpr (std::is_same_v<V, double>) return finite_or_null(v);
          else return v;
        },
        entry.value);
    j[nlohmann::json::json_pointer("/" + entry.name)] = value;
  }
  return j;
}

// The time events a run took: [{"name": ..., "times": [...]}], in declared order.
inline nlohmann::json events_json(const std::vector<EventRecord>& events) {
  nlohmann::json list = nlohmann::json::array();
  for (const EventRecord& event : events) list.push_back({{"name", event.name}, {"times", event.times}});
  return list;
}

// Events at moving times the run never reached: said, not an error.
inline void note_unreached_events(const std::vector<EventRecord>& events) {
  for (const EventRecord& event : events)
    if (event.moving && event.times.empty())
      std::cerr << "note: event '" << event.name
                << "' never happened (its condition never crossed 0, or its time fell outside the run)\n";
}

}  // namespace backsweep::apps
