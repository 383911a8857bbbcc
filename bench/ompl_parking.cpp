// make bench-ompl: the 20 TPCAP parking cases planned by OMPL, the peer a user would
// otherwise pick, beside `build/symplan-bench parking`. OMPL plans geometric Reeds–Shepp
// paths (arcs of the car's least turning radius and straight lines, curvature jumping at
// every joint) in the space of poses SE(2): RRT-Connect until a first path, then that path
// shortened by OMPL's simplifier; and RRT* for the whole budget, its best path. Collision
// checking uses symplan's exact footprint–polygon distance with the case's clearance, at
// 1 cm along the path, so both planners answer the same question. Per case: found or not,
// time, path length, gear changes and least clearance along the path (checked at 5 mm).
// Run from the top folder; with arguments, only the cases named. Prints; asserts nothing. OMPL is BSD-licensed and only this
// program links it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include <ompl/base/spaces/ReedsSheppStateSpace.h>
#include <ompl/geometric/SimpleSetup.h>
#include <ompl/geometric/planners/rrt/RRTConnect.h>
#include <ompl/geometric/planners/rrt/RRTstar.h>
#include <ompl/util/Console.h>

extern "C" {
#include "bench/tpcap_case.h"
#include "problems/car/sp_car_geometry.h"
}

namespace ob = ompl::base;
namespace og = ompl::geometric;

namespace {

const double BUDGET = 8.0; // s per planner and case, the smoothing budget of symplan's car plan

// The least distance between the footprint at pose and the obstacles.
double clearance_at(const sp_car_problem &car, const double pose[3])
{
    const sp_car_scene &s = car.scene;
    double least = HUGE_VAL;
    for (size_t i = 0; i < s.n_obstacles; ++i)
        least = std::min(least, sp_car_polygon_distance(&car.vehicle, pose, s.vertices + 2 * s.first[i],
                                                        s.first[i + 1] - s.first[i], nullptr));
    return least;
}

// Whether the footprint at pose lies inside the scene's bounds (as symplan's plan asks).
bool inside_bounds(const sp_car_problem &car, const double pose[3])
{
    const double *b = car.scene.bounds;
    double corners[8];
    sp_car_footprint(&car.vehicle, pose, corners);
    for (int c = 0; c < 4; ++c)
        if (corners[2 * c] < b[0] || corners[2 * c] > b[2] || corners[2 * c + 1] < b[1] || corners[2 * c + 1] > b[3])
            return false;
    return true;
}

struct figures {
    const char *why = "no path";
    bool found = false;
    double seconds = 0, length = NAN, clearance = NAN;
    int gears = -1;
};

// Length, gear changes and least clearance of a path, interpolated at about 5 mm.
void measure(const sp_car_problem &car, og::PathGeometric path, figures &f)
{
    f.length = path.length();
    path.interpolate(std::max<unsigned>(2, (unsigned)std::ceil(f.length / 0.005)));
    int direction = 0;
    f.gears = 0;
    f.clearance = HUGE_VAL;
    for (std::size_t k = 0; k < path.getStateCount(); ++k) {
        const auto *st = path.getState(k)->as<ob::SE2StateSpace::StateType>();
        const double pose[3] = {st->getX(), st->getY(), st->getYaw()};
        f.clearance = std::min(f.clearance, clearance_at(car, pose));
        if (k == 0) continue;
        const auto *prev = path.getState(k - 1)->as<ob::SE2StateSpace::StateType>();
        const double along = (st->getX() - prev->getX()) * std::cos(prev->getYaw()) +
                             (st->getY() - prev->getY()) * std::sin(prev->getYaw());
        if (std::fabs(along) < 1e-9) continue;
        const int d = along > 0 ? 1 : -1;
        if (direction != 0 && d != direction) ++f.gears;
        direction = d;
    }
}

figures plan(const sp_car_problem &car, bool optimal)
{
    const sp_car_vehicle &v = car.vehicle;
    const sp_car_scene &s = car.scene;
    auto space = std::make_shared<ob::ReedsSheppStateSpace>(v.wheelbase / std::tan(v.max_steering));
    ob::RealVectorBounds bounds(2);
    bounds.setLow(0, s.bounds[0]), bounds.setHigh(0, s.bounds[2]);
    bounds.setLow(1, s.bounds[1]), bounds.setHigh(1, s.bounds[3]);
    space->setBounds(bounds);
    og::SimpleSetup setup(space);
    setup.setStateValidityChecker([&car](const ob::State *state) {
        const auto *st = state->as<ob::SE2StateSpace::StateType>();
        const double pose[3] = {st->getX(), st->getY(), st->getYaw()};
        return inside_bounds(car, pose) && clearance_at(car, pose) >= car.scene.clearance;
    });
    const double extent = space->getMaximumExtent();
    setup.getSpaceInformation()->setStateValidityCheckingResolution(0.01 / extent); // 1 cm
    ob::ScopedState<ob::SE2StateSpace> start(space), goal(space);
    /* OMPL's headings lie in [−π, π] */
    start->setXY(s.start[0], s.start[1]), start->setYaw(std::atan2(std::sin(s.start[2]), std::cos(s.start[2])));
    goal->setXY(s.goal[0], s.goal[1]), goal->setYaw(std::atan2(std::sin(s.goal[2]), std::cos(s.goal[2])));
    setup.setStartAndGoalStates(start, goal, 1e-6);
    if (optimal)
        setup.setPlanner(std::make_shared<og::RRTstar>(setup.getSpaceInformation()));
    else
        setup.setPlanner(std::make_shared<og::RRTConnect>(setup.getSpaceInformation()));
    figures f;
    const auto t0 = std::chrono::steady_clock::now();
    const ob::PlannerStatus st = setup.solve(BUDGET);
    f.found = st == ob::PlannerStatus::EXACT_SOLUTION;
    if (st == ob::PlannerStatus::INVALID_START) f.why = "start not clear";
    if (st == ob::PlannerStatus::INVALID_GOAL) f.why = "goal not clear";
    if (f.found && !optimal) setup.simplifySolution(1.0);
    f.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (f.found) measure(car, setup.getSolutionPath(), f);
    return f;
}

void row(const char *what, const figures &f)
{
    if (f.found)
        std::printf("  %-22s %8.3f %9.2f %6d %10.3f\n", what, f.seconds, f.length, f.gears, f.clearance);
    else
        std::printf("  %-22s %8.3f %9s %6s %10s  %s\n", what, f.seconds, "-", "-", "-", f.why);
}

} // namespace

int main(int argc, char **argv)
{
    ompl::msg::setLogLevel(ompl::msg::LOG_NONE);
    std::printf("OMPL %d.%d.%d on the TPCAP cases (data/tpcap): Reeds-Shepp paths, budget %.0f s per planner\n\n",
                OMPL_MAJOR_VERSION, OMPL_MINOR_VERSION, OMPL_PATCH_VERSION, BUDGET);
    std::printf("case %-22s %8s %9s %6s %10s\n", "planner", "time [s]", "length", "gears", "clearance");
    int found[2] = {0, 0}, cases = 0;
    std::vector<double> times[2];
    for (int k = 1; k <= 20; ++k) {
        bool wanted = argc < 2; /* with arguments, the cases named (build/symplan-bench-ompl 3 7) */
        for (int a = 1; a < argc; ++a) wanted = wanted || std::atoi(argv[a]) == k;
        if (!wanted) continue;
        const sp_car_problem *car = nullptr;
        bench_tpcap_case *c = bench_tpcap_open(k, &car);
        if (!c) continue;
        ++cases;
        std::printf("%d\n", k);
        for (int q = 0; q < 2; ++q) {
            const figures f = plan(*car, q == 1);
            row(q ? "RRT* (best in budget)" : "RRT-Connect, shortened", f);
            if (f.found) ++found[q], times[q].push_back(f.seconds);
        }
        bench_tpcap_close(c);
    }
    for (int q = 0; q < 2; ++q) {
        std::sort(times[q].begin(), times[q].end());
        const double median = times[q].empty() ? NAN : times[q][times[q].size() / 2];
        std::printf("\n%s: %d of %d found, median time %.3f s", q ? "RRT*" : "RRT-Connect", found[q], cases, median);
    }
    std::printf("\n");
    return 0;
}
