#include "roofline/RooflineData.h"

#include "analysis/CompiledArch.h"

namespace dfc::views {

RooflineViewData buildRooflineViewData(const pef::Pef& pef, const std::map<int, double>& meanUsBySection,
                                       const analysis::HostPeaks* host) {
  RooflineViewData data;
  data.title = QString::fromStdString(pef.meta.pefName.empty() ? pef.meta.model : pef.meta.pefName);
  data.arch = QString::fromStdString(pef.meta.arch);
  for (const partition::Section& s : pef.plan.sections) data.sectionNames.push_back(QString::fromStdString(s.name));
  auto arch = analysis::compiledArch(pef.meta);
  if (!arch) {
    data.error = QString::fromStdString(arch.error().message());
    return data;
  }
  data.roofline = analysis::roofline(pef.plan, *arch);
  data.hostPoints = analysis::hostRooflinePoints(data.roofline, meanUsBySection);
  if (!data.hostPoints.empty()) data.host = host ? *host : analysis::hostPeaks();
  data.csv = QString::fromStdString(analysis::rooflineCsvWithHost(data.roofline, pef.plan, data.hostPoints));
  return data;
}

QString rooflineViewCsv(const RooflineViewData& data) { return data.csv; }

}  // namespace dfc::views
