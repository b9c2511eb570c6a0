#include "platform/rank_exchange.hpp"

#include "platform/byte_pack.hpp"
#include "platform/ranks.hpp"

namespace backsweep::ranks {

namespace {

enum class Doing : char { working, stopped };

struct Stop {
  int code = 0;
  bool followed = false;
  std::string message;
};

Stop read_stop(ByteUnpacker& in) {
  Stop stop;
  in >> stop.code >> stop.followed >> stop.message;
  return stop;
}

}  // namespace

std::vector<std::string> exchange(const std::string& bytes) {
  std::vector<std::string> parts = all_gather(char(Doing::working) + bytes);
  for (std::size_t r = 0; r < parts.size(); ++r) {
    if (Doing(parts[r].at(0)) == Doing::stopped) {
      ByteUnpacker in(parts[r]);
      char doing = 0;
      in >> doing;
      const int code = read_stop(in).code;
      throw RanksStopped{int(r), code != 0 ? code : 1};  // a rank that ended early failed the run
    }
    parts[r].erase(0, 1);
  }
  return parts;
}

Ending agree_to_stop(int code, bool followed, const std::string& message) {
  BytePacker out;
  out << char(Doing::stopped) << code << followed << message;
  for (;;) {  // until every rank has stopped: the others may still be working
    const std::vector<std::string> parts = all_gather(out.bytes());
    std::vector<Stop> stops;
    for (const std::string& part : parts) {
      if (Doing(part.at(0)) == Doing::working) break;
      ByteUnpacker in(part);
      char doing = 0;
      in >> doing;
      stops.push_back(read_stop(in));
    }
    if (stops.size() < parts.size()) continue;
    Ending ending;
    for (bool by_itself : {true, false})  // the rank that failed first, else any
      for (std::size_t r = 0; r < stops.size() && ending.code == 0; ++r)
        if (stops[r].code != 0 && (!by_itself || !stops[r].followed))
          ending = {stops[r].code, int(r), stops[r].message};
    return ending;
  }
}

}  // namespace backsweep::ranks
