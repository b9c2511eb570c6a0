#include "io/outputs/event_record.hpp"

#include "io/outputs/detail/hdf5_handle.hpp"
#include "io/outputs/event_output.hpp"
#include "solvers/time_events.hpp"

namespace backsweep {

std::vector<EventRecord> event_records(const IntegrateOptions& options) {
  std::vector<EventRecord> records;
  if (!options.events) return records;
  for (const TimeEvent& event : options.events->events()) {
    EventRecord& record = records.emplace_back(EventRecord{event.name, {}, event.floating()});
    for (double t : event.times)
      if (t >= options.t0 && t <= options.t1) record.times.push_back(t);  // one at t0 applies to y0
  }
  for (const EventOccurrence& happened : options.events->occurrences())  // the last run's
    if (happened.t <= options.t1) records[happened.event].times.push_back(happened.t);
  return records;
}

void write_events(hid_t file, const std::vector<EventRecord>& events) {
  if (events.empty()) return;
  detail::Hdf5Handle group = detail::create_group(file, "events");
  for (const EventRecord& event : events)
    detail::write_double_dataset(group, event.name, {event.times.size()}, event.times.data());
  group.close();
}

}  // namespace backsweep
