#include "graph/GraphView.h"

#include <QGraphicsSimpleTextItem>
#include <QHash>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "graph/GraphLayouter.h"
#include "graph/LayoutProgress.h"
#include "style/Palette.h"

namespace dfc::views {
namespace {

QString nodeToolTip(const GraphNode& node) {
  if (node.kind == GraphNodeKind::Stub)
    return GraphView::tr("%1 (%2), used all over the graph: drawn beside each use\ndouble-click to go to it")
        .arg(node.name, node.op);
  QString tip = GraphView::tr("%1 (%2)").arg(node.name, node.op);
  if (node.kind == GraphNodeKind::Collapsed) {
    tip += QLatin1Char('\n') +
           GraphView::tr("%n section(s), %1 hypersection(s)", nullptr, static_cast<int>(node.sections.size()))
               .arg(node.hypersectionOps.size());
  } else if (node.section >= 0) {
    tip +=
        QLatin1Char('\n') + GraphView::tr("section %1, hypersection %2").arg(node.section).arg(node.hypersectionName);
  }
  if (!node.hyperfunction.isEmpty())
    tip += QLatin1Char('\n') + GraphView::tr("hyperfunction %1").arg(node.hyperfunction);
  QStringList roles;
  for (const auto& [role, ops] : node.roleOps) roles << role;
  if (!roles.isEmpty()) tip += QLatin1Char('\n') + GraphView::tr("role %1").arg(roles.join(QStringLiteral(", ")));
  if (node.kind == GraphNodeKind::Collapsed) tip += QLatin1Char('\n') + GraphView::tr("double-click to unfold");
  return tip;
}

}  // namespace

GraphView::GraphView(QWidget* parent)
    : QGraphicsView(parent),
      m_layouter(new GraphLayouter(this)),
      m_scene(new QGraphicsScene(this)),
      m_canvas(new GraphCanvas),
      m_data(std::make_shared<const GraphData>()),
      m_layout(std::make_shared<const GraphLayout>()) {
  m_scene->setItemIndexMethod(QGraphicsScene::NoIndex);  // one item: the canvas indexes its own contents
  m_scene->addItem(m_canvas);
  m_message = m_scene->addSimpleText(QString());
  QFont font = m_message->font();
  font.setPointSize(12);
  m_message->setFont(font);
  m_message->setBrush(QColor(0x66, 0x66, 0x66));
  setScene(m_scene);
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setResizeAnchor(QGraphicsView::AnchorViewCenter);
  setViewportUpdateMode(QGraphicsView::FullViewportUpdate);  // the canvas repaints what is exposed, cheaply
  // The scene reaches far past the graph, so any point can be brought to any
  // place on screen (fit, unfold in place); scrollbars over it would mislead.
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setBackgroundBrush(QColor(0xfb, 0xfb, 0xfb));
  qRegisterMetaType<dfc::views::NodeDetails>();
  connect(m_layouter, &GraphLayouter::layoutReady, this, &GraphView::onLayoutReady);
  m_progress = new LayoutProgress(this);
  connect(m_progress, &LayoutProgress::cancelRequested, this, &GraphView::cancelLayout);
  connect(m_layouter, &GraphLayouter::layoutProgress, this, [this](int done, int total) {
    m_progress->setProgress(done, total);
    emit layoutProgress(done, total);
  });
  m_progressDelay.setSingleShot(true);
  m_progressDelay.setInterval(kProgressDelayMs);
  connect(&m_progressDelay, &QTimer::timeout, this, [this] {
    if (m_pending) m_progress->showOver(viewport()->geometry());
  });
  showMessage(tr("Open a PEF to see its operator graph"));
}

GraphView::~GraphView() = default;

// A fold keeps the picture so far (it pans, clicks work on it) until the
// new layout lands; a new graph has none to keep.
void GraphView::startLayout(GraphSource source, int ops, bool keepPicture) {
  m_pending = true;
  if (!keepPicture || !m_hasLayout) {
    m_hasLayout = false;
    showMessage(tr("Layout in progress (%n node(s))…", nullptr, ops));
  }
  m_progress->setTitle(tr("Laying out %n node(s)…", nullptr, ops));
  m_progress->setProgress(0, 0);
  m_layouter->requestBuildAndLayout(std::move(source));
  m_progressDelay.start();
}

void GraphView::setGraph(GraphData data) {
  m_openingModel = true;
  m_data = std::make_shared<const GraphData>(std::move(data));
  if (m_baseOverlay) m_overlay = std::make_shared<const GraphOverlay>(m_baseOverlay->fittedTo(*m_data));
  m_matches.clear();
  startLayout([data = m_data] { return data; }, static_cast<int>(m_data->nodes.size()), false);
  emit legendChanged();
}

void GraphView::setModel(std::shared_ptr<const ir::Graph> graph, std::shared_ptr<const partition::Plan> plan,
                         GraphDataOptions options) {
  m_irGraph = std::move(graph);
  m_plan = std::move(plan);
  m_options = std::move(options);
  m_hasLayout = false;
  m_autoFolded = false;
  m_openingModel = true;
  m_highlighted = -1;  // a section of the previous graph names nothing here
  if (m_ownIdentity && m_plan) m_identity = std::make_shared<const ColorIdentity>(ColorIdentity::fromPlan(*m_plan, m_irGraph.get()));
  rebuildFromModel();
}

void GraphView::setColorIdentity(SharedColorIdentity identity) {
  m_ownIdentity = !identity;
  m_identity = identity ? std::move(identity)
               : m_plan ? std::make_shared<const ColorIdentity>(ColorIdentity::fromPlan(*m_plan, m_irGraph.get()))
                        : nullptr;
  applyNodeStyles();
  emit legendChanged();
}

const ColorIdentity& GraphView::colorIdentity() const {
  static const ColorIdentity kEmpty;
  return m_identity ? *m_identity : kEmpty;
}

// Builds and lays out, on the layout thread, what the fold state now shows
// (50k ops take a tenth of a second to build: not on the UI thread). A new
// model's graph replaces the old one at once, so graph() never mixes them.
void GraphView::rebuildFromModel() {
  if (!m_irGraph || !m_plan) return;
  if (m_openingModel) {
    m_data = std::make_shared<const GraphData>();
    m_matches.clear();
    emit legendChanged();
  }
  GraphSource build = [graph = m_irGraph, plan = m_plan, options = m_options] {
    return std::make_shared<const GraphData>(buildGraphData(*graph, *plan, options));
  };
  startLayout(std::move(build), static_cast<int>(m_irGraph->nodes.size()), !m_openingModel);
}

std::set<QString> GraphView::requestedFold() const {
  return m_options.collapsedScopes.value_or(m_data->collapsedScopes);
}

void GraphView::collapse(const QString& scope) {
  auto scopes = requestedFold();
  if (!m_irGraph || scope.isEmpty() || scopes.count(scope) || !m_data->scopes.count(scope)) return;
  scopes.insert(scope);
  m_options.collapsedScopes = scopes;
  m_anchor = anchorOn(scope);
  m_fitted = false;
  rebuildFromModel();
}

void GraphView::expand(const QString& scope) {
  auto scopes = requestedFold();
  if (!m_irGraph || !scopes.count(scope)) return;
  scopes.erase(scope);
  m_options.collapsedScopes = scopes;
  m_anchor = anchorOn(scope);
  m_fitted = false;
  rebuildFromModel();
}

void GraphView::toggleCollapsed(const QString& scope) {
  if (isCollapsed(scope)) expand(scope);
  else collapse(scope);
}

void GraphView::cancelLayout() {
  if (!m_pending) return;
  m_layouter->cancel();
  m_pending = false;
  m_progressDelay.stop();
  m_progress->hide();
  m_anchor = {};
  if (!m_canvas->dataPtr()) {
    showMessage(tr("Layout cancelled: fold hyperfunctions to see fewer nodes"));
    return;
  }
  // Back to the fold state of the graph the picture shows.
  m_options.collapsedScopes = m_data->collapsedScopes;
  emit layoutShown();
}

void GraphView::setOverlay(std::shared_ptr<const GraphOverlay> overlay) {
  m_baseOverlay = std::move(overlay);
  m_overlay = m_baseOverlay ? std::make_shared<const GraphOverlay>(m_baseOverlay->fittedTo(*m_data)) : nullptr;
  if (colorsByKey(m_colorMode)) return;
  applyNodeStyles();
  emit legendChanged();
}

void GraphView::setColorMode(GraphColorMode mode) {
  if (mode == m_colorMode) return;
  m_colorMode = mode;
  applyNodeStyles();
  emit legendChanged();
}

NodeDetails GraphView::nodeDetails(int index) const {
  return describeNode(*m_data, index, m_irGraph.get(), m_plan.get());
}

void GraphView::selectNode(int index) {
  if (index < 0 || static_cast<size_t>(index) >= m_data->nodes.size()) return;
  emit nodeSelected(nodeDetails(index));
}

QList<int> GraphView::findNodes(const QString& text) {
  m_matches.clear();
  const QString needle = text.trimmed();
  if (!needle.isEmpty()) {
    // "conv" should find conv ops, not every op under a "conv1/" scope: the
    // scope path is searched only when the text names one ("conv1/").
    const bool path = needle.contains(QLatin1Char('/'));
    auto hitName = [&](const QString& name) {
      return (path ? name : name.section(QLatin1Char('/'), -1)).contains(needle, Qt::CaseInsensitive);
    };
    auto hit = [&](const QString& s) { return s.contains(needle, Qt::CaseInsensitive); };
    for (const GraphNode& node : m_data->nodes) {
      if (node.kind == GraphNodeKind::Stub) continue;  // its value's own node is found
      bool match = hitName(node.name) || hit(node.op) ||
                   (node.kind == GraphNodeKind::Collapsed && hit(node.name));
      if (!match && m_irGraph && node.kind == GraphNodeKind::Collapsed) {
        for (ir::NodeId id : node.members) {
          const ir::Node& op = m_irGraph->nodes[static_cast<size_t>(id)];
          const std::string_view opName = ir::opName(op.op);
          if (hitName(QString::fromStdString(op.name)) ||
              hit(QString::fromUtf8(opName.data(), static_cast<qsizetype>(opName.size())))) {
            match = true;
            break;
          }
        }
      }
      if (match) m_matches.append(node.id);
    }
  }
  applyNodeStyles();
  if (!m_matches.isEmpty() && m_hasLayout && showsGraph()) {
    userMoved();
    centerOn(m_layout->nodeRects[static_cast<size_t>(m_matches.first())].center());
  }
  return m_matches;
}

void GraphView::clear() {
  m_irGraph.reset();
  m_plan.reset();
  m_data = std::make_shared<const GraphData>();
  m_layout = std::make_shared<const GraphLayout>();
  m_hasLayout = false;
  m_pending = false;
  m_progressDelay.stop();
  m_progress->hide();
  showMessage(tr("No graph"));
}

void GraphView::showMessage(const QString& text) {
  m_canvas->setGraph(nullptr, nullptr);
  m_message->setText(text);
  m_message->show();
  m_scene->setSceneRect(m_message->boundingRect().adjusted(-20, -20, 20, 20));
  resetTransform();
  centerOn(m_message);
}

void GraphView::onLayoutReady(const std::shared_ptr<const GraphLayout>& layout) {
  m_pending = false;
  m_progressDelay.stop();
  m_progress->hide();
  if (layout->source && layout->source != m_data) takeGraph(layout->source);
  if (!layout->error.isEmpty() || layout->nodeRects.size() != m_data->nodes.size()) {
    const QString message = layout->error.isEmpty() ? tr("Layout does not match the graph") : layout->error;
    showMessage(tr("Layout failed: %1").arg(message));
    emit layoutFailed(message);
    return;
  }
  const bool opening = m_openingModel;
  m_openingModel = false;
  m_layout = layout;
  m_hasLayout = true;
  m_message->hide();
  m_canvas->setGraph(m_data, m_layout);
  updateSceneRect();
  applyNodeStyles();
  if (opening) {
    m_anchor = {};
    m_initialViewPending = true;
    if (m_data->collapsed) emit autoFolded();               // big: it opens folded by layer
    if (canShowInitialView() && showInitialView()) return;  // folding for readability: another layout comes
  } else {
    restoreAnchor();
  }
  emit layoutShown();
}

// The graph a layout was made for becomes the one graph() shows.
void GraphView::takeGraph(std::shared_ptr<const GraphData> data) {
  m_data = std::move(data);
  if (m_baseOverlay) m_overlay = std::make_shared<const GraphOverlay>(m_baseOverlay->fittedTo(*m_data));
  m_matches.clear();
  if (m_irGraph && !m_options.collapsedScopes)
    m_options.collapsedScopes = m_data->collapsedScopes;  // from now on the user decides
  emit legendChanged();
}

// Fill by colour mode; border: search match > highlighted section > plain.
void GraphView::applyNodeStyles() {
  const GraphData* shown = m_canvas->data();
  if (!shown) return;
  const ColorIdentity& identity = colorIdentity();
  std::vector<char> matched(shown->nodes.size(), 0);
  if (showsGraph() && !m_plainStyles)
    for (int i : m_matches) matched[static_cast<size_t>(i)] = 1;
  std::vector<GraphCanvas::NodeStyle> styles(shown->nodes.size());
  // A categorical colour depends on the node's key alone: look each key up once.
  const bool byKey = colorsByKey(m_colorMode);
  QHash<QString, QColor> colourOfKey;
  auto colourOf = [&](const GraphNode& node) {
    if (!byKey || node.kind == GraphNodeKind::Input || node.kind == GraphNodeKind::Stub)
      return nodeColor(node, m_colorMode, identity, m_overlay.get());
    const QString key = colorKey(node, m_colorMode);
    auto it = colourOfKey.find(key);
    if (it == colourOfKey.end()) it = colourOfKey.insert(key, nodeColor(node, m_colorMode, identity, m_overlay.get()));
    return it.value();
  };
  for (const GraphNode& node : shown->nodes) {
    GraphCanvas::NodeStyle& style = styles[static_cast<size_t>(node.id)];
    const QColor fill = colourOf(node);
    style.base = node.kind == GraphNodeKind::Stub ? QColor(0xd8, 0xd8, 0xe0) : fill;
    style.fill = fill;
    // Only a folded node mixes colours (stripes).
    if (node.kind == GraphNodeKind::Collapsed)
      style.stripes =
          nodeBrush(node, m_colorMode, identity, m_layout->nodeRects[static_cast<size_t>(node.id)], m_overlay.get());
    style.text = textColorOn(fill);
    const bool section = !m_plainStyles && m_highlighted >= 0 && holdsSection(node, m_highlighted);
    style.marked = !m_plainStyles && showsGraph() && isMarked(node.id);
    style.raised = matched[static_cast<size_t>(node.id)] || section || style.marked;
    if (matched[static_cast<size_t>(node.id)])
      style.pen = QColor(0xff, 0x8c, 0x00), style.penWidth = 4;
    else if (section)
      style.pen = QColor(0xd0, 0x20, 0x20), style.penWidth = 3;
    else if (node.kind == GraphNodeKind::Stub)
      style.pen = QColor(0x90, 0x90, 0xa0), style.penWidth = 1, style.dashed = true;
    else
      style.pen = fill.darker(160);
  }
  m_canvas->setStyles(std::move(styles));
}

void GraphView::setDecisionMarks(std::map<ir::NodeId, QString> notes) {
  m_decisionNotes = std::move(notes);
  applyNodeStyles();
}

bool GraphView::isMarked(int index) const {
  if (m_decisionNotes.empty() || index < 0 || static_cast<size_t>(index) >= m_data->nodes.size()) return false;
  const GraphNode& node = m_data->nodes[static_cast<size_t>(index)];
  if (node.kind == GraphNodeKind::Collapsed)
    return std::any_of(node.members.begin(), node.members.end(), [this](ir::NodeId n) { return m_decisionNotes.count(n) > 0; });
  return node.kind == GraphNodeKind::Op && m_decisionNotes.count(node.irNode) > 0;
}

bool GraphView::holdsSection(const GraphNode& node, int sectionId) const {
  return node.section == sectionId || node.sections.count(sectionId) > 0;
}

void GraphView::setZoom(double factor) {
  userMoved();  // the user's zoom, not a fit: a resize keeps it
  applyZoom(factor);
}

void GraphView::applyZoom(double factor) {
  factor = std::clamp(factor, 1e-4, 8.0);  // a 330-layer stack fits at 0.001
  const double current = zoom();
  if (current > 0) scale(factor / current, factor / current);
  emit zoomChanged(factor);
}

void GraphView::highlightSection(int sectionId, bool reveal) {
  m_highlighted = sectionId;
  applyNodeStyles();
  if (!reveal || sectionId < 0) return;
  QList<int> nodes;
  for (const GraphNode& node : m_data->nodes)
    if (holdsSection(node, sectionId)) nodes.append(node.id);
  centreOnNodes(nodes);
}

void GraphView::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  const double factor = std::pow(1.2, steps);
  const double current = transform().m11();
  if ((current > 8 && factor > 1) || (current < 2e-4 && factor < 1)) return;
  scale(factor, factor);  // AnchorUnderMouse keeps the point under the cursor fixed
  userMoved();
  emit zoomChanged(zoom());
  event->accept();
}

int GraphView::nodeAt(QPoint pos) const {
  // While a new layout is on its way the picture is the old graph's: its
  // nodes are not the ones graph() lists.
  return showsGraph() ? m_canvas->nodeAt(mapToScene(pos)) : -1;
}

QString GraphView::toolTipAt(QPoint pos) const {
  const GraphData* shown = m_canvas->data();
  if (!shown) return {};
  const QPointF at = mapToScene(pos);
  const int node = m_canvas->nodeAt(at);
  if (node >= 0) return nodeToolTip(shown->nodes[static_cast<size_t>(node)]) + decisionNote(node);
  const int edge = m_canvas->edgeAt(at, kEdgeHoverPx / std::max(transform().m11(), 1e-6));
  if (const QString boundary = edge >= 0 ? boundaryToolTip(edge) : QString(); !boundary.isEmpty()) return boundary;
  const int frame = m_canvas->clusterAt(at);
  if (frame < 0) return {};
  return tr("%1: double-click to fold into one node").arg(m_layout->clusters[static_cast<size_t>(frame)].label);
}

// "\npending decision: cut before" for a marked node of the picture shown.
QString GraphView::decisionNote(int index) const {
  if (!showsGraph() || !isMarked(index)) return {};
  const GraphNode& node = m_data->nodes[static_cast<size_t>(index)];
  QStringList notes;
  if (node.kind == GraphNodeKind::Op) notes << m_decisionNotes.at(node.irNode);
  for (ir::NodeId n : node.members)
    if (const auto it = m_decisionNotes.find(n); it != m_decisionNotes.end() && !notes.contains(it->second)) notes << it->second;
  return QLatin1Char('\n') + tr("pending decision (next recompile): %1").arg(notes.join(QStringLiteral(", ")));
}

bool GraphView::viewportEvent(QEvent* event) {
  if (event->type() != QEvent::ToolTip) return QGraphicsView::viewportEvent(event);
  auto* help = static_cast<QHelpEvent*>(event);
  const QString tip = toolTipAt(help->pos());
  if (tip.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(help->globalPos(), tip, viewport());
  return true;
}

void GraphView::mousePressEvent(QMouseEvent* event) {
  m_pressPos = event->pos();
  QGraphicsView::mousePressEvent(event);
}

void GraphView::mouseReleaseEvent(QMouseEvent* event) {
  QGraphicsView::mouseReleaseEvent(event);
  if ((event->pos() - m_pressPos).manhattanLength() > 3) userMoved();  // a pan
  // A click (not a drag) on a node shows its details.
  if (event->button() == Qt::LeftButton && (event->pos() - m_pressPos).manhattanLength() <= 3) {
    const int index = nodeAt(event->pos());
    if (index >= 0 && (event->modifiers() & Qt::ControlModifier)) toggleHighlighted(index);
    else if (index >= 0) selectNode(index);
  }
}

void GraphView::toggleHighlighted(int index) {
  if (index < 0 || static_cast<size_t>(index) >= m_data->nodes.size()) return;
  if (!m_matches.removeOne(index)) m_matches.append(index);
  applyNodeStyles();
}

// On a folded node: unfold it; on a frame: fold it; on a stub: go to its
// value's node. The picture shown decides (also while a layout is coming).
void GraphView::mouseDoubleClickEvent(QMouseEvent* event) {
  const GraphData* shown = m_canvas->data();
  const QPointF at = mapToScene(event->pos());
  const int index = shown ? m_canvas->nodeAt(at) : -1;
  if (index >= 0) {
    const GraphNode& node = shown->nodes[static_cast<size_t>(index)];
    if (node.kind == GraphNodeKind::Collapsed && m_irGraph)
      expand(node.hyperfunction);
    else if (node.kind == GraphNodeKind::Stub && showsGraph())
      centreOnNodes({node.stubSource});
    else if (showsGraph())
      emit nodeActivated(index);
    return;
  }
  const int frame = shown ? m_canvas->clusterAt(at) : -1;
  if (frame >= 0 && m_irGraph) return collapse(m_layout->clusters[static_cast<size_t>(frame)].label);
  QGraphicsView::mouseDoubleClickEvent(event);
}

}  // namespace dfc::views
