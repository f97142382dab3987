// MINCOSTFLOW: shared objects as a min-cost flow (Pisarchyk & Lee 2020).
// Every tensor i has a left twin L_i (it hands its object on) and a right
// twin R_i (it receives an object). R_i is fed either by the source, which
// opens a new object at cost size_i, or by some L_r whose tensor ended before
// i starts, at the cost of growing r's object to fit i. Each unit of flow
// into R_i decides where tensor i's memory comes from.
#include <algorithm>
#include <deque>
#include <limits>
#include <vector>

#include "mace/core/memory/strategies.h"
#include "mace/core/memory/time_line.h"

namespace mace {
namespace memory {
namespace {

struct Edge {
  int to;
  int capacity;
  int64_t cost;
};

class FlowGraph {
 public:
  explicit FlowGraph(int num_nodes) : out_(num_nodes) {}

  // Adds edge and its residual twin at index ^ 1.
  void AddEdge(int from, int to, int64_t cost) {
    out_[from].push_back(static_cast<int>(edges_.size()));
    edges_.push_back({to, 1, cost});
    out_[to].push_back(static_cast<int>(edges_.size()));
    edges_.push_back({from, 0, -cost});
  }

  // Successive shortest paths, one unit per path. Paths are found by SPFA
  // (FIFO queue, strict improvement only), so with edges added in a fixed
  // order the result is deterministic; among equal-cost paths the first
  // one reached wins.
  void Solve(int source, int sink) {
    const int n = static_cast<int>(out_.size());
    const int64_t kInfinity = std::numeric_limits<int64_t>::max();
    std::vector<int64_t> dist(n);
    std::vector<int> via(n);
    std::vector<char> queued(n);
    while (true) {
      std::fill(dist.begin(), dist.end(), kInfinity);
      std::fill(via.begin(), via.end(), -1);
      std::deque<int> queue = {source};
      dist[source] = 0;
      queued[source] = 1;
      while (!queue.empty()) {
        const int node = queue.front();
        queue.pop_front();
        queued[node] = 0;
        for (int e : out_[node]) {
          const Edge& edge = edges_[e];
          if (edge.capacity == 0 || dist[node] + edge.cost >= dist[edge.to]) continue;
          dist[edge.to] = dist[node] + edge.cost;
          via[edge.to] = e;
          if (!queued[edge.to]) {
            queued[edge.to] = 1;
            queue.push_back(edge.to);
          }
        }
      }
      if (dist[sink] == kInfinity) return;
      for (int node = sink; node != source; node = edges_[via[node] ^ 1].to) {
        edges_[via[node]].capacity -= 1;
        edges_[via[node] ^ 1].capacity += 1;
      }
    }
  }

  // True if the forward edge `e` (an even index) carries flow.
  bool Saturated(int e) const { return edges_[e].capacity == 0; }
  const std::vector<int>& out(int node) const { return out_[node]; }
  const Edge& edge(int e) const { return edges_[e]; }

 private:
  std::vector<Edge> edges_;
  std::vector<std::vector<int>> out_;
};

}  // namespace

ObjectsAssignment MinCostFlowAssignment(const std::vector<UsageRecord>& records) {
  const std::vector<size_t> order = OrderByFirstTask(records);
  const int n = static_cast<int>(records.size());
  auto left = [](int i) { return i; };
  auto right = [n](int i) { return n + i; };
  const int source = 2 * n;
  const int sink = 2 * n + 1;
  auto size_of = [&](int i) { return static_cast<int64_t>(records[order[i]].size); };

  FlowGraph graph(2 * n + 2);
  std::vector<int> open_edge(n);  // source -> R_i
  for (int i = 0; i < n; ++i) {
    graph.AddEdge(source, left(i), 0);
    graph.AddEdge(right(i), sink, 0);
    open_edge[i] = 2 * (3 * i + 2);
    graph.AddEdge(source, right(i), size_of(i));
  }
  for (int r = 0; r < n; ++r) {
    for (int i = 0; i < n; ++i) {
      if (records[order[r]].last < records[order[i]].first) {
        graph.AddEdge(left(r), right(i), std::max<int64_t>(0, size_of(i) - size_of(r)));
      }
    }
  }
  graph.Solve(source, sink);

  // A flow path source -> R_a, L_a -> R_b, L_b -> R_c ... is one object
  // shared by a, b, c in that order.
  ObjectsAssignment assignment;
  assignment.object_ids.assign(n, kNotAssigned);
  for (int i = 0; i < n; ++i) {
    if (!graph.Saturated(open_edge[i])) continue;
    const size_t object = assignment.object_sizes.size();
    assignment.object_sizes.push_back(0);
    for (int tensor = i; tensor >= 0;) {
      assignment.object_ids[order[tensor]] = object;
      assignment.object_sizes[object] =
          std::max(assignment.object_sizes[object], records[order[tensor]].size);
      int next = -1;
      for (int e : graph.out(left(tensor))) {
        if (e % 2 == 0 && graph.Saturated(e)) {
          next = graph.edge(e).to - n;
          break;
        }
      }
      tensor = next;
    }
  }
  return assignment;
}

}  // namespace memory
}  // namespace mace
