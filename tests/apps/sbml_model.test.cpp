// SBML models ([model] sbml) through the real program: every model of the PEtab test
// suite and benchmark collection (tests/petab/) is read; one simulated against the
// suite's reference; ids that are reserved names, concentrations in a compartment of size
// 2, events and piecewise against closed forms; piecewise's switches of time and of the
// state in gradients against the closed form's; adjoint = tangent; what is not taken
// refused at the element's line.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "tests/apps/run_cli.hpp"

namespace {

namespace fs = std::filesystem;
const fs::path kPetab = fs::path(BACKSWEEP_SOURCE_DIR) / "tests/petab";

const fs::path& scratch() {
  static const fs::path dir = scratch_folder("sbml_model");
  return dir;
}

CliRun run(const std::string& command, const std::string& config, const std::string& name = "model.toml") {
  std::ofstream(scratch() / name) << config;
  return run_cli(command + " --json " + (scratch() / name).string(), scratch());
}

// The --json object of `simulate` on a config; the run must succeed.
nlohmann::json simulated(const std::string& config) {
  const CliRun r = run("simulate", config);
  CAPTURE(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(r.out);
}

std::string config_of(const fs::path& sbml, const std::string& rest) {
  return "[model]\nsbml = \"" + sbml.string() + "\"\n" + rest;
}

// An SBML Level 3 model around `body` (its lists), written to the scratch folder.
fs::path sbml_file(const std::string& name, const std::string& body) {
  const fs::path path = scratch() / (name + ".xml");
  std::ofstream(path) << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                         "<sbml xmlns=\"http://www.sbml.org/sbml/level3/version2/core\" level=\"3\" version=\"2\">\n"
                         "<model id=\"" << name << "\">\n" << body << "</model>\n</sbml>\n";
  return path;
}

std::string math(const std::string& inner) { return "<math xmlns=\"http://www.w3.org/1998/Math/MathML\">" + inner + "</math>"; }

// A species e in compartment `exp` (size 2) decaying into t at rate pi: every id a
// reserved name; e starts as an amount 4, a concentration 2.
const char* const kReserved = R"(<listOfCompartments><compartment id="exp" size="2" constant="true" spatialDimensions="3"/></listOfCompartments>
<listOfSpecies>
<species id="e" compartment="exp" initialAmount="4" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
<species id="t" compartment="exp" initialConcentration="0" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>
</listOfSpecies>
<listOfParameters><parameter id="pi" value="0.5" constant="true"/></listOfParameters>
<listOfReactions><reaction id="decay" reversible="false">
<listOfReactants><speciesReference species="e" stoichiometry="1" constant="true"/></listOfReactants>
<listOfProducts><speciesReference species="t" stoichiometry="1" constant="true"/></listOfProducts>
<kineticLaw><math xmlns="http://www.w3.org/1998/Math/MathML"><apply><times/><ci>exp</ci><ci>pi</ci><ci>e</ci></apply></math></kineticLaw>
</reaction></listOfReactions>
)";

const char* const kTight = "[solver]\nmethod = \"dopri5\"\nrtol = 1e-11\natol = 1e-13\n";

}  // namespace

TEST_CASE("every SBML model of the PEtab suite and benchmarks is read and simulated, or refused saying why") {
  // What these few do is not taken as a config's model: no state at all.
  const std::map<std::string, std::string> refused = {{"v2.0.0/sbml/0024", "nothing to simulate"},
                                                      {"v2.0.0/sbml/0025", "nothing to simulate"}};
  int models = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kPetab)) {
    if (entry.path().extension() != ".xml") continue;
    CAPTURE(entry.path());
    const CliRun r = run("simulate", config_of(entry.path(), "[time]\nend = 1\n"));
    CAPTURE(r.err);
    const std::string folder = entry.path().parent_path().string();
    const auto why = std::find_if(refused.begin(), refused.end(), [&](const auto& c) { return folder.ends_with(c.first); });
    if (why == refused.end()) {
      CHECK(r.exit_code == 0);
    } else {
      CHECK(r.exit_code == 2);
      CHECK(r.err.find(why->second) != std::string::npos);
    }
    ++models;
  }
  CHECK(models >= 20 + 31 + 6);  // some cases hold a second model file
}

TEST_CASE("the suite's case 0001 simulated as its reference: A(10) with the parameter table's values") {
  const fs::path model = kPetab / "test-suite/v1.0.0/sbml/0001/_model.xml";
  const auto j = simulated(config_of(model, "[parameters]\na0 = 1\nb0 = 0\nk1 = 0.8\nk2 = 0.6\n"
                                            "[time]\nend = 10\noutput = [10]\n" + std::string(kTight)));
  // _simulations.tsv: obs_a = A at t = 10.
  CHECK(std::abs(j["states"]["A"][1].get<double>() - 0.42857190373069665) < 1e-8);
}

TEST_CASE("ids that are reserved names work; a concentration's reactions are over its compartment's size") {
  const fs::path model = sbml_file("reserved", kReserved);
  const auto j = simulated(config_of(model, "[time]\nend = 2\noutput = [2]\n" + std::string(kTight)));
  // d[e]/dt = -(V pi [e]) / V: [e] = 2 exp(-t/2); what leaves e arrives in t.
  CHECK(std::abs(j["states"]["e_"][1].get<double>() - 2.0 * std::exp(-1.0)) < 1e-9);
  CHECK(std::abs(j["states"]["t_"][1].get<double>() - (2.0 - 2.0 * std::exp(-1.0))) < 1e-9);
}

TEST_CASE("[parameters] and [initial] change an SBML model's values") {
  const fs::path model = sbml_file("reserved_changed", kReserved);
  const auto j = simulated(config_of(model, "[parameters]\npi_ = 1\n[initial]\ne_ = 1\n"
                                            "[time]\nend = 2\noutput = [2]\n" + std::string(kTight)));
  CHECK(std::abs(j["states"]["e_"][1].get<double>() - std::exp(-2.0)) < 1e-9);
  CHECK(std::abs(j["states"]["t_"][1].get<double>() - (1.0 - std::exp(-2.0))) < 1e-9);
}

TEST_CASE("an SBML model's gradient: the adjoint equals the forward tangent") {
  const fs::path model = sbml_file("reserved_gradient", kReserved);
  const std::string rest = "[time]\nend = 2\n" + std::string(kTight) + "[objective]\nterminal = \"t_^2\"\n";
  const CliRun adjoint = run("gradient", config_of(model, rest + "[gradient]\nmode = \"adjoint\"\n"));
  const CliRun tangent = run("gradient", config_of(model, rest + "[gradient]\nmode = \"tangent\"\n"));
  CAPTURE(adjoint.err);
  REQUIRE(adjoint.exit_code == 0);
  REQUIRE(tangent.exit_code == 0);
  const auto a = nlohmann::json::parse(adjoint.out)["gradient"]["parameters"];
  const auto b = nlohmann::json::parse(tangent.out)["gradient"]["parameters"];
  for (const char* p : {"pi_", "exp_"}) {
    CAPTURE(p);
    CHECK(std::abs(a[p].get<double>() - b[p].get<double>()) <= 1e-9 * (1.0 + std::abs(b[p].get<double>())));
  }
  // J = (4/V (1 - exp(-pi T)))^2 with V = 2, T = 2: the size enters through the initial
  // concentration (an amount of 4) only.
  const double decay = std::exp(-1.0);
  CHECK(std::abs(a["pi_"].get<double>() - 2.0 * (2.0 - 2.0 * decay) * 4.0 * decay) < 1e-7);
  CHECK(std::abs(a["exp_"].get<double>() + 4.0 * (1.0 - decay) * (1.0 - decay)) < 1e-7);
}

TEST_CASE("rules, initial assignments, function definitions, piecewise and an event at a parameter's time") {
  // x' = k f(x) with f(x) = -x (a function definition); y = 2x (an assignment rule);
  // z' = piecewise(1 if t < 1, else 0) (a rate rule); at t = tau an event sets x to 5.
  const std::string body = R"(<listOfFunctionDefinitions><functionDefinition id="f">)" +
                           math("<lambda><bvar><ci>u</ci></bvar><apply><minus/><ci>u</ci></apply></lambda>") +
                           R"(</functionDefinition></listOfFunctionDefinitions>
<listOfParameters>
<parameter id="k" value="1" constant="true"/><parameter id="tau" value="1.5" constant="true"/>
<parameter id="x" constant="false"/><parameter id="y" constant="false"/><parameter id="z" value="0" constant="false"/>
</listOfParameters>
<listOfInitialAssignments><initialAssignment symbol="x">)" +
                           math("<apply><times/><cn>2</cn><ci>k</ci></apply>") + R"(</initialAssignment></listOfInitialAssignments>
<listOfRules>
<rateRule variable="x">)" + math("<apply><times/><ci>k</ci><apply><ci>f</ci><ci>x</ci></apply></apply>") + R"(</rateRule>
<assignmentRule variable="y">)" + math("<apply><times/><cn>2</cn><ci>x</ci></apply>") + R"(</assignmentRule>
<rateRule variable="z">)" + math("<piecewise><piece><cn>1</cn><apply><lt/><csymbol encoding=\"text\" definitionURL=\"http://www.sbml.org/sbml/symbols/time\">t</csymbol><cn>1</cn></apply></piece><otherwise><cn>0</cn></otherwise></piecewise>") + R"(</rateRule>
</listOfRules>
<listOfEvents><event id="reset" useValuesFromTriggerTime="true"><trigger initialValue="true" persistent="true">)" +
                           math("<apply><geq/><csymbol encoding=\"text\" definitionURL=\"http://www.sbml.org/sbml/symbols/time\">t</csymbol><ci>tau</ci></apply>") +
                           R"(</trigger><listOfEventAssignments><eventAssignment variable="x">)" + math("<cn>5</cn>") +
                           R"(</eventAssignment></listOfEventAssignments></event></listOfEvents>
)";
  const fs::path model = sbml_file("rules", body);
  const auto j = simulated(config_of(model, "[time]\nend = 2\noutput = [0.5, 2]\n" + std::string(kTight)));
  CHECK(std::abs(j["states"]["x"][1].get<double>() - 2.0 * std::exp(-0.5)) < 1e-8);
  CHECK(std::abs(j["states"]["x"][2].get<double>() - 5.0 * std::exp(-0.5)) < 1e-8);  // reset at 1.5
  CHECK(std::abs(j["states"]["z"][2].get<double>() - 1.0) < 1e-9);  // the piecewise's switch flips at t = 1
  CHECK(j["events"][0]["name"] == "reset");
}

TEST_CASE("piecewise of time and of the state switch where they cross: gradients exact through the switches' times") {
  // x' = (a while t < tau, else 0) - k x and y' = (1 while x > c, else 0) from x = y = 0:
  // x crosses c up at t1, the input stops at tau, x crosses c down at t2 < T, so
  // J = x(T) + y(T) = x(tau) exp(-k (T - tau)) + t2 - t1.
  const auto closed_form = [](double a, double k, double tau, double c) {
    const double T = 4.0, x_tau = a / k * (1.0 - std::exp(-k * tau));
    const double t1 = -std::log(1.0 - c * k / a) / k, t2 = tau + std::log(x_tau / c) / k;
    return x_tau * std::exp(-k * (T - tau)) + t2 - t1;
  };
  const std::string time = R"(<csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol>)";
  const std::string body = R"(<listOfParameters>
<parameter id="a" value="2" constant="true"/><parameter id="k" value="0.5" constant="true"/>
<parameter id="tau" value="1.2" constant="true"/><parameter id="c" value="0.6" constant="true"/>
<parameter id="x" value="0" constant="false"/><parameter id="y" value="0" constant="false"/>
</listOfParameters>
<listOfRules>
<rateRule variable="x">)" + math("<apply><minus/><piecewise><piece><ci>a</ci><apply><lt/>" + time +
                                  "<ci>tau</ci></apply></piece><otherwise><cn>0</cn></otherwise></piecewise>"
                                  "<apply><times/><ci>k</ci><ci>x</ci></apply></apply>") + R"(</rateRule>
<rateRule variable="y">)" + math("<piecewise><piece><cn>1</cn><apply><gt/><ci>x</ci><ci>c</ci></apply></piece>"
                                  "<otherwise><cn>0</cn></otherwise></piecewise>") + R"(</rateRule>
</listOfRules>
)";
  const fs::path model = sbml_file("switches", body);
  const std::string rest = "[time]\nend = 4\n" + std::string(kTight) + "[objective]\nterminal = \"x + y\"\n";
  const auto j = simulated(config_of(model, rest));
  CHECK(std::abs(j["states"]["x"].back().get<double>() + j["states"]["y"].back().get<double>() -
                 closed_form(2.0, 0.5, 1.2, 0.6)) < 1e-9);
  const CliRun adjoint = run("gradient", config_of(model, rest + "[gradient]\nmode = \"adjoint\"\n"));
  const CliRun tangent = run("gradient", config_of(model, rest + "[gradient]\nmode = \"tangent\"\n"));
  CAPTURE(adjoint.err);
  REQUIRE(adjoint.exit_code == 0);
  REQUIRE(tangent.exit_code == 0);
  const auto g = nlohmann::json::parse(adjoint.out)["gradient"]["parameters"];
  const auto h = nlohmann::json::parse(tangent.out)["gradient"]["parameters"];
  const double nominal[] = {2.0, 0.5, 1.2, 0.6}, step = 1e-5;
  const char* names[] = {"a", "k", "tau", "c"};
  for (int i = 0; i < 4; ++i) {  // the closed form's central difference: error ~1e-10
    double up[4], down[4];
    std::copy(nominal, nominal + 4, up);
    std::copy(nominal, nominal + 4, down);
    up[i] += step;
    down[i] -= step;
    const double reference =
        (closed_form(up[0], up[1], up[2], up[3]) - closed_form(down[0], down[1], down[2], down[3])) / (2 * step);
    CAPTURE(names[i]);
    CHECK(std::abs(g[names[i]].get<double>() - reference) < 1e-7 * (1.0 + std::abs(reference)));
    CHECK(std::abs(g[names[i]].get<double>() - h[names[i]].get<double>()) < 1e-9 * (1.0 + std::abs(reference)));
  }
}

TEST_CASE("what is not taken is refused at the element: exit 2, the file, its line and the id") {
  const std::string species = R"(<listOfCompartments><compartment id="c" size="1" constant="true"/></listOfCompartments>
<listOfSpecies><species id="s" compartment="c" initialConcentration="1" hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/></listOfSpecies>
<listOfParameters><parameter id="p" value="1" constant="false"/></listOfParameters>
)";
  struct Case {
    const char* name;
    std::string body;
    const char* says;
  };
  const Case cases[] = {
      {"algebraic", species + "<listOfRules><algebraicRule>" + math("<apply><minus/><ci>p</ci><ci>s</ci></apply>") +
                        "</algebraicRule></listOfRules>\n",
       "algebraic rules are not taken"},
      {"delayed", species + "<listOfRules><rateRule variable=\"p\">" +
                      math("<apply><csymbol encoding=\"text\" definitionURL=\"http://www.sbml.org/sbml/symbols/delay\">delay</csymbol><ci>s</ci><cn>1</cn></apply>") +
                      "</rateRule></listOfRules>\n",
       "delay() is not taken"},
      {"unknown_name", species + "<listOfRules><rateRule variable=\"p\">" + math("<ci>nowhere</ci>") + "</rateRule></listOfRules>\n",
       "'nowhere' is not a species, compartment or parameter"},
      {"floor", species + "<listOfRules><rateRule variable=\"p\">" + math("<apply><floor/><ci>s</ci></apply>") +
                    "</rateRule></listOfRules>\n",
       "floor() is not taken"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const fs::path model = sbml_file(c.name, c.body);
    const CliRun r = run("simulate", config_of(model, "[time]\nend = 1\n"));
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(model.string() + ":") != std::string::npos);
    CHECK(r.err.find(c.says) != std::string::npos);
    CAPTURE(r.err);
  }
  const fs::path broken = scratch() / "broken.xml";
  std::ofstream(broken) << "<?xml version=\"1.0\"?>\n<sbml level=\"3\" version=\"2\"><model id=\"m\">\n<listOf";
  const CliRun r = run("simulate", config_of(broken, "[time]\nend = 1\n"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("not a model libSBML can read") != std::string::npos);
}
