#pragma once
// The details pane's text for a clicked graph node: op, role, scope,
// attributes, shapes, its section and hypersection, the estimate against the
// latest run, and the kernels the host runs fused in its section.
#include <QString>

namespace dfc::views {
struct GraphData;
struct NodeDetails;
struct ScheduleData;
}  // namespace dfc::views

namespace dfc::studio {

QString nodeDetailsHtml(const views::NodeDetails& node, const views::GraphData& graph, const views::ScheduleData& schedule);

}  // namespace dfc::studio
