#pragma once
// The time events a run took, in a result file: group /events, one dataset of times per
// event, named as the event (no group where there are none).
#include <vector>

#include <hdf5.h>

#include "io/outputs/event_record.hpp"

namespace backsweep {

void write_events(hid_t file, const std::vector<EventRecord>& events);

}  // namespace backsweep
