<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>CompareSummary</name>
    <message>
        <source>, with decisions</source>
        <translation>, mit Entscheidungen</translation>
    </message>
</context>
<context>
    <name>ExportFile</name>
    <message>
        <source>Cannot write %1: folder %2 does not exist</source>
        <translation>%1 kann nicht geschrieben werden: Ordner %2 existiert nicht</translation>
    </message>
</context>
<context>
    <name>GraphView</name>
    <message>
        <source>Measured time share</source>
        <translation>Gemessener Zeitanteil</translation>
    </message>
    <message>
        <source>Measured / estimated</source>
        <translation>Gemessen / geschätzt</translation>
    </message>
    <message>
        <source>PCU use</source>
        <translation>PCU-Auslastung</translation>
    </message>
    <message>
        <source>PMU use</source>
        <translation>PMU-Auslastung</translation>
    </message>
    <message>
        <source>no recorded run: nothing to show</source>
        <translation>kein aufgezeichneter Lauf: nichts anzuzeigen</translation>
    </message>
    <message>
        <source>no figure</source>
        <translation>kein Wert</translation>
    </message>
    <message>
        <source>Op type</source>
        <translation>Operatortyp</translation>
    </message>
    <message>
        <source>Section</source>
        <translation>Sektion</translation>
    </message>
    <message>
        <source>Hypersection</source>
        <translation>Hypersektion</translation>
    </message>
    <message>
        <source>Hyperfunction</source>
        <translation>Hyperfunktion</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>section %1</source>
        <translation>Sektion %1</translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n call(s)</source>
        <translation>
            <numerusform>%1 · %n Aufruf</numerusform>
            <numerusform>%1 · %n Aufrufe</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n op(s)</source>
        <translation>
            <numerusform>%1 · %n Operation</numerusform>
            <numerusform>%1 · %n Operationen</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>dfc::views::ChipCanvas</name>
    <message>
        <source>%1 (%2)
%3 %4, stages %5, slice %6
cell (%7, %8), tile %9, chip %10</source>
        <translation>%1 (%2)
%3 %4, Stufen %5, Teil %6
Zelle (%7, %8), Kachel %9, Chip %10</translation>
    </message>
    <message>
        <source>PMU</source>
        <translation>PMU</translation>
    </message>
    <message>
        <source>PCU</source>
        <translation>PCU</translation>
    </message>
    <message>
        <source>link (%1, %2) -&gt; (%3, %4): %5 of %6 nets</source>
        <translation>Verbindung (%1, %2) -&gt; (%3, %4): %5 von %6 Netzen</translation>
    </message>
    <message>
        <source>, over capacity</source>
        <translation>, über der Kapazität</translation>
    </message>
    <message>
        <source>cell (%1, %2): busy in %3 of %4 section calls</source>
        <translation>Zelle (%1, %2): belegt in %3 von %4 Sektionsaufrufen</translation>
    </message>
</context>
<context>
    <name>dfc::views::ChipPanel</name>
    <message>
        <source>Export SVG...</source>
        <translation>SVG exportieren...</translation>
    </message>
    <message>
        <source>Export PNG...</source>
        <translation>PNG exportieren...</translation>
    </message>
    <message>
        <source>Section:</source>
        <translation>Sektion:</translation>
    </message>
    <message>
        <source>Open a placed PEF to see its chip.</source>
        <translation>Öffnen Sie eine platzierte PEF, um ihren Chip zu sehen.</translation>
    </message>
    <message>
        <source>This PEF has no bitfiles: it was written before placement.</source>
        <translation>Diese PEF hat keine Bitfiles: Sie wurde vor der Platzierung geschrieben.</translation>
    </message>
    <message>
        <source>Whole step: unit use (heat map)</source>
        <translation>Ganzer Schritt: Einheitenbelegung (Heatmap)</translation>
    </message>
    <message>
        <source>%1 tile(s) of %2x%3 on %4 chip(s)</source>
        <translation>%1 Kachel(n) zu %2x%3 auf %4 Chip(s)</translation>
    </message>
    <message>
        <source>Unit use over the step: each cell by the section calls that keep its unit busy, of %1 calls; %2.</source>
        <translation>Einheitenbelegung über den Schritt: jede Zelle nach den Sektionsaufrufen, die ihre Einheit belegen, von %1 Aufrufen; %2.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Heat map&lt;/b&gt;&lt;br&gt;white: idle all step&lt;br&gt;&lt;span style='color:#d96b0d'&gt;&amp;#9632;&lt;/span&gt; the busiest unit: %1 of %2 calls</source>
        <translation>&lt;b&gt;Heatmap&lt;/b&gt;&lt;br&gt;weiß: den ganzen Schritt frei&lt;br&gt;&lt;span style='color:#d96b0d'&gt;&amp;#9632;&lt;/span&gt; die am stärksten belegte Einheit: %1 von %2 Aufrufen</translation>
    </message>
    <message>
        <source>links not recorded (a PEF from before format 1.4)</source>
        <translation>Verbindungen nicht aufgezeichnet (eine PEF vor Format 1.4)</translation>
    </message>
    <message>
        <source>%1 links routed, most loaded %2 of %3 nets, %4 over capacity</source>
        <translation>%1 Verbindungen geroutet, höchste Last %2 von %3 Netzen, %4 über der Kapazität</translation>
    </message>
    <message>
        <source>Section %1 (hypersection %2, shared by %3 section(s)): %4 PCUs, %5 PMUs; %6; %7.</source>
        <translation>Sektion %1 (Hypersektion %2, geteilt von %3 Sektion(en)): %4 PCUs, %5 PMUs; %6; %7.</translation>
    </message>
    <message>
        <source>&lt;b&gt;Ops&lt;/b&gt; (square PCU, round lighter PMU)&lt;br&gt;</source>
        <translation>&lt;b&gt;Operationen&lt;/b&gt; (eckig PCU, rund und heller PMU)&lt;br&gt;</translation>
    </message>
    <message>
        <source>&lt;br&gt;&lt;b&gt;Links&lt;/b&gt;: nets / capacity&lt;br&gt;</source>
        <translation>&lt;br&gt;&lt;b&gt;Verbindungen&lt;/b&gt;: Netze / Kapazität&lt;br&gt;</translation>
    </message>
    <message>
        <source>lightly loaded</source>
        <translation>wenig belastet</translation>
    </message>
    <message>
        <source>exactly full</source>
        <translation>genau voll</translation>
    </message>
    <message>
        <source>over capacity</source>
        <translation>über der Kapazität</translation>
    </message>
    <message>
        <source>No chip to export</source>
        <translation>Kein Chip zum Exportieren</translation>
    </message>
    <message>
        <source>Cannot write %1</source>
        <translation>%1 kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>Export chip as SVG</source>
        <translation>Chip als SVG exportieren</translation>
    </message>
    <message>
        <source>Export chip as PNG</source>
        <translation>Chip als PNG exportieren</translation>
    </message>
    <message>
        <source>SVG images (*.svg)</source>
        <translation>SVG-Bilder (*.svg)</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG-Bilder (*.png)</translation>
    </message>
    <message>
        <source>Export failed</source>
        <translation>Export fehlgeschlagen</translation>
    </message>
</context>
<context>
    <name>dfc::views::ComparePanel</name>
    <message>
        <source>Choose a PEF for each side, e.g. the same model at -o0 and -o3, or on sn30 and sn40l.</source>
        <translation>Wählen Sie für jede Seite eine PEF, z. B. dasselbe Modell mit -o0 und -o3 oder auf sn30 und sn40l.</translation>
    </message>
    <message>
        <source>Left</source>
        <translation>Links</translation>
    </message>
    <message>
        <source>Right</source>
        <translation>Rechts</translation>
    </message>
    <message>
        <source>%1: open PEF...</source>
        <translation>%1: PEF öffnen …</translation>
    </message>
    <message>
        <source>%1: use the open PEF</source>
        <translation>%1: die geöffnete PEF verwenden</translation>
    </message>
    <message>
        <source>Open PEF</source>
        <translation>PEF öffnen</translation>
    </message>
    <message>
        <source>PEF files (*.pef);;All files (*)</source>
        <translation>PEF-Dateien (*.pef);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Loading %1...</source>
        <translation>%1 wird geladen …</translation>
    </message>
    <message>
        <source>%1 with its run %2</source>
        <translation>%1 mit seinem Lauf %2</translation>
    </message>
    <message>
        <source>%1 (no run found: estimates only)</source>
        <translation>%1 (kein Lauf gefunden: nur Schätzungen)</translation>
    </message>
    <message>
        <source>Reading PEF files is not available in this build</source>
        <translation>Das Lesen von PEF-Dateien ist in diesem Build nicht verfügbar</translation>
    </message>
    <message>
        <source>%1: open trace...</source>
        <translation>%1: Trace öffnen …</translation>
    </message>
    <message>
        <source>Another run of this side&apos;s PEF (a chrome trace JSON)</source>
        <translation>Ein anderer Lauf der PEF dieser Seite (ein Chrome-Trace-JSON)</translation>
    </message>
    <message>
        <source>Open Trace</source>
        <translation>Trace öffnen</translation>
    </message>
    <message>
        <source>Chrome traces (*.json *.json.gz);;All files (*)</source>
        <translation>Chrome-Traces (*.json *.json.gz);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>%1 opened</source>
        <translation>%1 geöffnet</translation>
    </message>
</context>
<context>
    <name>dfc::studio::DecisionsController</name>
    <message numerus="yes">
        <source>Put %n node(s) in one section</source>
        <translation>
            <numerusform>%n Knoten in eine Sektion legen</numerusform>
            <numerusform>%n Knoten in eine Sektion legen</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Cut before %n node(s)</source>
        <translation>
            <numerusform>Vor %n Knoten schneiden</numerusform>
            <numerusform>Vor %n Knoten schneiden</numerusform>
        </translation>
    </message>
    <message>
        <source>Assign to chip</source>
        <translation>Chip zuweisen</translation>
    </message>
    <message>
        <source>Chip %1</source>
        <translation>Chip %1</translation>
    </message>
    <message numerus="yes">
        <source>Save decisions (%n)...</source>
        <translation>
            <numerusform>Entscheidung speichern (%n)...</numerusform>
            <numerusform>Entscheidungen speichern (%n)...</numerusform>
        </translation>
    </message>
    <message>
        <source>Save decisions</source>
        <translation>Entscheidungen speichern</translation>
    </message>
    <message>
        <source>Decisions files (*.yaml);;All files (*)</source>
        <translation>Entscheidungsdateien (*.yaml);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Recompile with decisions</source>
        <translation>Mit Entscheidungen neu kompilieren</translation>
    </message>
    <message>
        <source>Clear decisions</source>
        <translation>Entscheidungen verwerfen</translation>
    </message>
    <message numerus="yes">
        <source>%n decision(s) for the next compile: %1</source>
        <translation>
            <numerusform>%n Entscheidung für die nächste Kompilierung: %1</numerusform>
            <numerusform>%n Entscheidungen für die nächste Kompilierung: %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Saved %n decision(s) to %1</source>
        <translation>
            <numerusform>%n Entscheidung in %1 gespeichert</numerusform>
            <numerusform>%n Entscheidungen in %1 gespeichert</numerusform>
        </translation>
    </message>
    <message>
        <source>Pick nodes and add decisions first.</source>
        <translation>Wählen Sie zuerst Knoten und fügen Sie Entscheidungen hinzu.</translation>
    </message>
    <message>
        <source>A compile or run is in progress; try again when it ends.</source>
        <translation>Eine Kompilierung oder ein Lauf ist im Gange; versuchen Sie es danach erneut.</translation>
    </message>
</context>
<context>
    <name>dfc::views::GraphPanel</name>
    <message>
        <source>Which colour is what, with the number of nodes of each</source>
        <translation>Welche Farbe was bedeutet, mit der Anzahl der Knoten</translation>
    </message>
    <message>
        <source>What the node colours show</source>
        <translation>Was die Knotenfarben zeigen</translation>
    </message>
    <message>
        <source>Find node by name or op (Ctrl+F)</source>
        <translation>Knoten nach Name oder Operation suchen (Strg+F)</translation>
    </message>
    <message>
        <source>Highlights the matching nodes and centres on the first; Enter finds again</source>
        <translation>Hebt die passenden Knoten hervor und zentriert auf den ersten; Eingabe sucht erneut</translation>
    </message>
    <message>
        <source>C&amp;olour by:</source>
        <translation>&amp;Farbe nach:</translation>
    </message>
    <message numerus="yes">
        <source>%n match(es)</source>
        <translation>
            <numerusform>%n Treffer</numerusform>
            <numerusform>%n Treffer</numerusform>
        </translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>Einpassen</translation>
    </message>
    <message>
        <source>Fit the whole graph (Ctrl+Shift+F)</source>
        <translation>Den ganzen Graphen einpassen (Strg+Umschalt+F)</translation>
    </message>
    <message>
        <source>Fit selection</source>
        <translation>Auswahl einpassen</translation>
    </message>
    <message>
        <source>Fit the found or highlighted nodes</source>
        <translation>Die gefundenen oder hervorgehobenen Knoten einpassen</translation>
    </message>
    <message>
        <source>Fold all</source>
        <translation>Alle falten</translation>
    </message>
    <message>
        <source>Fold every hyperfunction into one node</source>
        <translation>Jede Hyperfunktion zu einem Knoten falten</translation>
    </message>
    <message>
        <source>Unfold all</source>
        <translation>Alle entfalten</translation>
    </message>
    <message>
        <source>Show every operation</source>
        <translation>Jede Operation zeigen</translation>
    </message>
</context>
<context>
    <name>dfc::studio::MainWindow</name>
    <message>
        <source>C&amp;hip</source>
        <translation>C&amp;hip</translation>
    </message>
    <message>
        <source>Dataflow Studio</source>
        <translation>Dataflow Studio</translation>
    </message>
    <message>
        <source>Click a slice in the timeline or a node in the graph to see its details.</source>
        <translation>Klicken Sie auf einen Slice in der Zeitleiste oder einen Knoten im Graphen, um seine Details zu sehen.</translation>
    </message>
    <message>
        <source>&amp;Compile</source>
        <translation>&amp;Kompilieren</translation>
    </message>
    <message>
        <source>&amp;Graph &amp;&amp; Timeline</source>
        <translation>&amp;Graph &amp;&amp; Zeitleiste</translation>
    </message>
    <message>
        <source>&amp;Schedule</source>
        <translation>&amp;Ablaufplan</translation>
    </message>
    <message>
        <source>R&amp;uns</source>
        <translation>&amp;Läufe</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>Bereit</translation>
    </message>
    <message>
        <source>Graph laid out in %1 ms</source>
        <translation>Graph in %1 ms angeordnet</translation>
    </message>
    <message>
        <source>Graph layout failed: %1</source>
        <translation>Anordnen des Graphen fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Compiled %1</source>
        <translation>%1 kompiliert</translation>
    </message>
    <message>
        <source>Loading %1...</source>
        <translation>%1 wird geladen …</translation>
    </message>
    <message>
        <source>%1 - Dataflow Studio</source>
        <translation>%1 – Dataflow Studio</translation>
    </message>
    <message numerus="yes">
        <source>%n section(s)</source>
        <translation>
            <numerusform>%n Sektion</numerusform>
            <numerusform>%n Sektionen</numerusform>
        </translation>
    </message>
    <message>
        <source>Loaded %1</source>
        <translation>%1 geladen</translation>
    </message>
    <message>
        <source>Reading PEF files is not available in this build</source>
        <translation>Das Lesen von PEF-Dateien ist in diesem Build nicht verfügbar</translation>
    </message>
    <message>
        <source>Loading trace %1...</source>
        <translation>Trace %1 wird geladen …</translation>
    </message>
    <message numerus="yes">
        <source>Trace %1: %n slice(s)</source>
        <translation>
            <numerusform>Trace %1: %n Slice</numerusform>
            <numerusform>Trace %1: %n Slices</numerusform>
        </translation>
    </message>
    <message>
        <source>Reading traces is not available in this build</source>
        <translation>Das Lesen von Traces ist in diesem Build nicht verfügbar</translation>
    </message>
    <message>
        <source>row</source>
        <translation>Zeile</translation>
    </message>
    <message>
        <source>category</source>
        <translation>Kategorie</translation>
    </message>
    <message>
        <source>start</source>
        <translation>Beginn</translation>
    </message>
    <message>
        <source>duration</source>
        <translation>Dauer</translation>
    </message>
    <message>
        <source>Open &amp;PEF...</source>
        <translation>&amp;PEF öffnen …</translation>
    </message>
    <message>
        <source>Open a compiled model (PEF) into the graph, timeline and schedule</source>
        <translation>Ein kompiliertes Modell (PEF) in Graph, Zeitleiste und Ablaufplan öffnen</translation>
    </message>
    <message>
        <source>Open PEF</source>
        <translation>PEF öffnen</translation>
    </message>
    <message>
        <source>PEF files (*.pef);;All files (*)</source>
        <translation>PEF-Dateien (*.pef);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Open &amp;Trace...</source>
        <translation>&amp;Trace öffnen …</translation>
    </message>
    <message>
        <source>Ctrl+T</source>
        <translation>Ctrl+T</translation>
    </message>
    <message>
        <source>Open a chrome tracing JSON file into the timeline</source>
        <translation>Eine Chrome-Tracing-JSON-Datei in der Zeitleiste öffnen</translation>
    </message>
    <message>
        <source>Open Trace</source>
        <translation>Trace öffnen</translation>
    </message>
    <message>
        <source>Chrome traces (*.json *.json.gz);;All files (*)</source>
        <translation>Chrome-Traces (*.json *.json.gz);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Ctrl+B</source>
        <translation>Ctrl+B</translation>
    </message>
    <message>
        <source>Compile the model set on the Compile screen</source>
        <translation>Das auf der Seite „Kompilieren“ eingestellte Modell kompilieren</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>&amp;Ausführen</translation>
    </message>
    <message>
        <source>Ctrl+R</source>
        <translation>Ctrl+R</translation>
    </message>
    <message>
        <source>Train or evaluate the compiled PEF and load its trace</source>
        <translation>Die kompilierte PEF trainieren oder auswerten und ihren Trace laden</translation>
    </message>
    <message>
        <source>C&amp;ancel</source>
        <translation>Abbre&amp;chen</translation>
    </message>
    <message>
        <source>Ctrl+.</source>
        <translation>Ctrl+.</translation>
    </message>
    <message>
        <source>Stop the running compile or run</source>
        <translation>Den laufenden Kompilier- oder Ausführungsvorgang anhalten</translation>
    </message>
    <message>
        <source>Chrome tracing &amp;JSON...</source>
        <translation>Chrome-Tracing-&amp;JSON …</translation>
    </message>
    <message>
        <source>Export chrome tracing JSON</source>
        <translation>Chrome-Tracing-JSON exportieren</translation>
    </message>
    <message>
        <source>Chrome traces (*.json)</source>
        <translation>Chrome-Traces (*.json)</translation>
    </message>
    <message>
        <source>&amp;Section report (CSV)...</source>
        <translation>&amp;Sektionsbericht (CSV) …</translation>
    </message>
    <message>
        <source>Export section report</source>
        <translation>Sektionsbericht exportieren</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV-Dateien (*.csv)</translation>
    </message>
    <message>
        <source>Wrote %1</source>
        <translation>%1 geschrieben</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Beenden</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>&amp;Export</source>
        <translation>&amp;Exportieren</translation>
    </message>
    <message>
        <source>&amp;Build</source>
        <translation>&amp;Erstellen</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>&amp;Graph and Timeline</source>
        <translation>&amp;Graph und Zeitleiste</translation>
    </message>
    <message>
        <source>Fit &amp;Timeline</source>
        <translation>&amp;Zeitleiste einpassen</translation>
    </message>
    <message>
        <source>Ctrl+0</source>
        <translation>Ctrl+0</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>&amp;About Dataflow Studio</source>
        <translation>&amp;Über Dataflow Studio</translation>
    </message>
    <message>
        <source>About &amp;Qt</source>
        <translation>Über &amp;Qt</translation>
    </message>
    <message>
        <source>Main</source>
        <translation>Haupt</translation>
    </message>
    <message>
        <source>No PEF is loaded; open or compile one first.</source>
        <translation>Es ist keine PEF geladen; öffnen oder kompilieren Sie zuerst eine.</translation>
    </message>
    <message>
        <source>No trace is loaded; run a PEF or open a trace first.</source>
        <translation>Es ist kein Trace geladen; führen Sie zuerst eine PEF aus oder öffnen Sie einen Trace.</translation>
    </message>
    <message>
        <source>About Dataflow Studio</source>
        <translation>Über Dataflow Studio</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Dataflow Studio %1&lt;/h3&gt;&lt;p&gt;Compiles ML models for a reconfigurable dataflow accelerator, runs them and shows what the compiler and the run did: operator graph, section schedule and timelines.&lt;/p&gt;&lt;p&gt;Built with Qt %2.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Dataflow Studio %1&lt;/h3&gt;&lt;p&gt;Kompiliert ML-Modelle für einen rekonfigurierbaren Datenfluss-Beschleuniger, führt sie aus und zeigt, was der Compiler und der Lauf getan haben: Operatorgraph, Sektionsablaufplan und Zeitleisten.&lt;/p&gt;&lt;p&gt;Erstellt mit Qt %2.&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Ctrl+Q</source>
        <translation>Ctrl+Q</translation>
    </message>
    <message>
        <source>Com&amp;pare</source>
        <translation>&amp;Vergleichen</translation>
    </message>
    <message>
        <source>Graph as &amp;DOT...</source>
        <translation>Graph als &amp;DOT …</translation>
    </message>
    <message>
        <source>Graph as S&amp;VG...</source>
        <translation>Graph als S&amp;VG …</translation>
    </message>
    <message>
        <source>Graph as &amp;PNG...</source>
        <translation>Graph als &amp;PNG …</translation>
    </message>
    <message>
        <source>Graphviz DOT (*.dot)</source>
        <translation>Graphviz-DOT (*.dot)</translation>
    </message>
    <message>
        <source>SVG images (*.svg)</source>
        <translation>SVG-Bilder (*.svg)</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG-Bilder (*.png)</translation>
    </message>
    <message>
        <source>Export graph</source>
        <translation>Graph exportieren</translation>
    </message>
    <message>
        <source>op</source>
        <translation>Operation</translation>
    </message>
    <message>
        <source>role</source>
        <translation>Rolle</translation>
    </message>
    <message>
        <source>hyperfunction</source>
        <translation>Hyperfunktion</translation>
    </message>
    <message>
        <source>inputs</source>
        <translation>Eingaben</translation>
    </message>
    <message>
        <source>outputs</source>
        <translation>Ausgaben</translation>
    </message>
    <message>
        <source>section</source>
        <translation>Sektion</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keine</translation>
    </message>
    <message>
        <source>hypersection</source>
        <translation>Hypersektion</translation>
    </message>
    <message>
        <source>est. PCUs</source>
        <translation>geschätzte PCUs</translation>
    </message>
    <message>
        <source>est. PMUs</source>
        <translation>geschätzte PMUs</translation>
    </message>
    <message>
        <source>est. latency</source>
        <translation>geschätzte Latenz</translation>
    </message>
    <message>
        <source>GFLOP</source>
        <translation>GFLOP</translation>
    </message>
    <message>
        <source>estimate</source>
        <translation>Schätzung</translation>
    </message>
    <message>
        <source>none (not in a section)</source>
        <translation>keine (in keiner Sektion)</translation>
    </message>
    <message>
        <source>Open &amp;Model...</source>
        <translation>&amp;Modell öffnen...</translation>
    </message>
    <message>
        <source>Ctrl+Shift+O</source>
        <translation>Ctrl+Shift+O</translation>
    </message>
    <message>
        <source>Pick an ONNX or DFIR model to compile on the Compile screen</source>
        <translation>Ein ONNX- oder DFIR-Modell zum Kompilieren in der Ansicht Kompilieren wählen</translation>
    </message>
    <message>
        <source>Open Model</source>
        <translation>Modell öffnen</translation>
    </message>
    <message>
        <source>Models (*.onnx *.dfir);;All files (*)</source>
        <translation>Modelle (*.onnx *.dfir);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Model %1 is set; press Compile</source>
        <translation>Modell %1 ist gesetzt; Kompilieren drücken</translation>
    </message>
    <message>
        <source>%1 (%2 ops folded into it)</source>
        <translation>%1 (%2 Operationen darin zusammengefaltet)</translation>
    </message>
    <message>
        <source>%1 %2</source>
        <translation>%1 %2</translation>
    </message>
    <message numerus="yes">
        <source>%1 (%n op(s))</source>
        <translation>
            <numerusform>%1 (%n Operation)</numerusform>
            <numerusform>%1 (%n Operationen)</numerusform>
        </translation>
    </message>
    <message>
        <source>roles</source>
        <translation>Rollen</translation>
    </message>
    <message>
        <source>sections</source>
        <translation>Sektionen</translation>
    </message>
    <message>
        <source>hypersections</source>
        <translation>Hypersektionen</translation>
    </message>
    <message>
        <source>est. latency per call</source>
        <translation>geschätzte Latenz je Aufruf</translation>
    </message>
    <message>
        <source>measured mean per call</source>
        <translation>gemessenes Mittel je Aufruf</translation>
    </message>
    <message numerus="yes">
        <source>%1 over %n call(s)</source>
        <translation>
            <numerusform>%1 über %n Aufruf</numerusform>
            <numerusform>%1 über %n Aufrufe</numerusform>
        </translation>
    </message>
    <message>
        <source>not run</source>
        <translation>nicht ausgeführt</translation>
    </message>
    <message>
        <source>measured / estimated</source>
        <translation>gemessen / geschätzt</translation>
    </message>
    <message>
        <source>&amp;Find...</source>
        <translation>&amp;Suchen …</translation>
    </message>
    <message>
        <source>Find graph nodes by name or op; on the timeline, slices by name</source>
        <translation>Graphknoten nach Name oder Operation suchen; in der Zeitleiste Slices nach Name</translation>
    </message>
    <message>
        <source>Fit &amp;Graph</source>
        <translation>&amp;Graph einpassen</translation>
    </message>
    <message>
        <source>Ctrl+Shift+F</source>
        <translation>Ctrl+Shift+F</translation>
    </message>
    <message>
        <source>Show the whole operator graph</source>
        <translation>Den ganzen Operatorgraphen zeigen</translation>
    </message>
    <message>
        <source>&amp;Memory</source>
        <translation>&amp;Speicher</translation>
    </message>
    <message>
        <source>R&amp;oofline</source>
        <translation>R&amp;oofline</translation>
    </message>
    <message>
        <source>%1: made by the selected operator; open its run to see its lifetime on the timeline</source>
        <translation>%1: vom ausgewählten Operator erzeugt; öffnen Sie seinen Lauf, um seine Lebensdauer in der Zeitleiste zu sehen</translation>
    </message>
    <message>
        <source>%1: live from call %2 to %3, selected on the timeline</source>
        <translation>%1: lebt von Aufruf %2 bis %3, in der Zeitleiste ausgewählt</translation>
    </message>
</context>
<context>
    <name>dfc::studio::Session</name>
    <message>
        <source>Choose a model to compile: a zoo name or a .dfir file.</source>
        <translation>Wählen Sie ein zu kompilierendes Modell: einen Zoo-Namen oder eine .dfir-Datei.</translation>
    </message>
    <message>
        <source>Compiling %1...</source>
        <translation>%1 wird kompiliert …</translation>
    </message>
    <message>
        <source>--- compile %1 ---</source>
        <translation>--- %1 kompilieren ---</translation>
    </message>
    <message>
        <source>Compile cancelled.</source>
        <translation>Kompilieren abgebrochen.</translation>
    </message>
    <message>
        <source>Compile failed: %1</source>
        <translation>Kompilieren fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Compile a model first, or choose a PEF to run.</source>
        <translation>Kompilieren Sie zuerst ein Modell oder wählen Sie eine auszuführende PEF.</translation>
    </message>
    <message>
        <source>The PEF %1 does not exist.</source>
        <translation>Die PEF %1 existiert nicht.</translation>
    </message>
    <message>
        <source>Running %1...</source>
        <translation>%1 wird ausgeführt …</translation>
    </message>
    <message>
        <source>--- run %1 ---</source>
        <translation>--- %1 ausführen ---</translation>
    </message>
    <message>
        <source>Run cancelled.</source>
        <translation>Ausführung abgebrochen.</translation>
    </message>
    <message>
        <source>Run failed: %1</source>
        <translation>Ausführung fehlgeschlagen: %1</translation>
    </message>
    <message numerus="yes">
        <source>Run finished: %n training step(s)</source>
        <translation>
            <numerusform>Ausführung beendet: %n Trainingsschritt</numerusform>
            <numerusform>Ausführung beendet: %n Trainingsschritte</numerusform>
        </translation>
    </message>
    <message>
        <source>, final loss %1</source>
        <translation>, abschließender Verlust %1</translation>
    </message>
    <message>
        <source>, test accuracy %1 %</source>
        <translation>, Testgenauigkeit %1 %</translation>
    </message>
    <message>
        <source>.
Trace: %1</source>
        <translation>.
Trace: %1</translation>
    </message>
    <message>
        <source>Compiled %1 nodes into %2 sections (%3) in %4; estimated %5 per step.
PEF: %6</source>
        <translation>%1 Knoten in %2 Sektionen (%3) in %4 kompiliert; geschätzt %5 pro Schritt.
PEF: %6</translation>
    </message>
</context>
<context>
    <name>dfc::views::CompareSummary</name>
    <message>
        <source>Sections</source>
        <translation>Sektionen</translation>
    </message>
    <message>
        <source>Hypersections</source>
        <translation>Hypersektionen</translation>
    </message>
    <message>
        <source>Sections by role (%1)</source>
        <translation>Sektionen nach Rolle (%1)</translation>
    </message>
    <message>
        <source>Estimated step latency</source>
        <translation>Geschätzte Schrittlatenz</translation>
    </message>
    <message>
        <source>Largest section PCUs / PMUs</source>
        <translation>PCUs / PMUs der größten Sektion</translation>
    </message>
    <message>
        <source>no run</source>
        <translation>kein Lauf</translation>
    </message>
    <message>
        <source>Steps run</source>
        <translation>Ausgeführte Schritte</translation>
    </message>
    <message>
        <source>n/a</source>
        <translation>k. A.</translation>
    </message>
    <message>
        <source>Measured per step (section calls)</source>
        <translation>Gemessen pro Schritt (Sektionsaufrufe)</translation>
    </message>
    <message>
        <source>Measured per sample</source>
        <translation>Gemessen pro Beispiel</translation>
    </message>
</context>
<context>
    <name>dfc::views::CompareView</name>
    <message>
        <source>Open two compiles or runs to compare them</source>
        <translation>Öffnen Sie zwei Kompilierungen oder Läufe, um sie zu vergleichen</translation>
    </message>
    <message>
        <source>Left: nothing open</source>
        <translation>Links: nichts geöffnet</translation>
    </message>
    <message>
        <source>Right: nothing open</source>
        <translation>Rechts: nichts geöffnet</translation>
    </message>
    <message>
        <source>Hypersection</source>
        <translation>Hypersektion</translation>
    </message>
    <message>
        <source>Calls L</source>
        <translation>Aufrufe L</translation>
    </message>
    <message>
        <source>Calls R</source>
        <translation>Aufrufe R</translation>
    </message>
    <message>
        <source>Est. L</source>
        <translation>Geschätzt L</translation>
    </message>
    <message>
        <source>Est. R</source>
        <translation>Geschätzt R</translation>
    </message>
    <message>
        <source>Measured L</source>
        <translation>Gemessen L</translation>
    </message>
    <message>
        <source>Measured R</source>
        <translation>Gemessen R</translation>
    </message>
    <message>
        <source>Δ per step</source>
        <translation>Δ pro Schritt</translation>
    </message>
    <message>
        <source>Per step on each side; Δ is measured when both sides were run, else estimated</source>
        <translation>Pro Schritt auf jeder Seite; Δ ist gemessen, wenn beide Seiten ausgeführt wurden, sonst geschätzt</translation>
    </message>
</context>
<context>
    <name>dfc::views::CompilePanel</name>
    <message>
        <source>&amp;Compile</source>
        <translation>&amp;Kompilieren</translation>
    </message>
    <message>
        <source>&amp;Run</source>
        <translation>&amp;Ausführen</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>idle</source>
        <translation>bereit</translation>
    </message>
    <message>
        <source>The compiler&apos;s and runtime&apos;s log appears here.</source>
        <translation>Hier erscheint das Protokoll von Compiler und Laufzeit.</translation>
    </message>
    <message>
        <source>Log:</source>
        <translation>Protokoll:</translation>
    </message>
    <message>
        <source>Compile</source>
        <translation>Kompilieren</translation>
    </message>
    <message>
        <source>Browse...</source>
        <translation>Durchsuchen …</translation>
    </message>
    <message>
        <source>Open model</source>
        <translation>Modell öffnen</translation>
    </message>
    <message>
        <source>Models (*.dfir *.onnx);;All files (*)</source>
        <translation>Modelle (*.dfir *.onnx);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>&amp;Model:</source>
        <translation>&amp;Modell:</translation>
    </message>
    <message>
        <source>default: the model name</source>
        <translation>Vorgabe: der Modellname</translation>
    </message>
    <message>
        <source>&amp;PEF name:</source>
        <translation>&amp;PEF-Name:</translation>
    </message>
    <message>
        <source>default: ./out/&lt;PEF name&gt;</source>
        <translation>Vorgabe: ./out/&lt;PEF-Name&gt;</translation>
    </message>
    <message>
        <source>Output folder</source>
        <translation>Ausgabeordner</translation>
    </message>
    <message>
        <source>&amp;Output folder:</source>
        <translation>A&amp;usgabeordner:</translation>
    </message>
    <message>
        <source>Inference only (no loss, gradients or optimizer)</source>
        <translation>Nur Inferenz (kein Verlust, keine Gradienten, kein Optimierer)</translation>
    </message>
    <message>
        <source>Mode:</source>
        <translation>Modus:</translation>
    </message>
    <message>
        <source>&amp;Batch size:</source>
        <translation>&amp;Batchgröße:</translation>
    </message>
    <message>
        <source>o0: one section per operator</source>
        <translation>o0: eine Sektion je Operator</translation>
    </message>
    <message>
        <source>o1: fuse by rule list</source>
        <translation>o1: nach Regelliste fusionieren</translation>
    </message>
    <message>
        <source>o3: fuse whole layers</source>
        <translation>o3: ganze Schichten fusionieren</translation>
    </message>
    <message>
        <source>Optimization &amp;level:</source>
        <translation>Optimierungs&amp;stufe:</translation>
    </message>
    <message>
        <source>An arch preset, &quot;native&quot; (%1) or the path of an arch YAML file</source>
        <translation>Eine Architektur-Vorgabe, „native“ (%1) oder der Pfad einer Architektur-YAML-Datei</translation>
    </message>
    <message>
        <source>Arch file</source>
        <translation>Architekturdatei</translation>
    </message>
    <message>
        <source>Arch YAML (*.yaml *.yml)</source>
        <translation>Architektur-YAML (*.yaml *.yml)</translation>
    </message>
    <message>
        <source>&amp;Arch:</source>
        <translation>A&amp;rchitektur:</translation>
    </message>
    <message>
        <source>momentum</source>
        <translation>Momentum</translation>
    </message>
    <message>
        <source>sgd</source>
        <translation>SGD</translation>
    </message>
    <message>
        <source>Optimi&amp;zer:</source>
        <translation>Optimi&amp;erer:</translation>
    </message>
    <message>
        <source>Learning &amp;rate:</source>
        <translation>&amp;Lernrate:</translation>
    </message>
    <message>
        <source>&amp;Seed (weights):</source>
        <translation>&amp;Startwert (Gewichte):</translation>
    </message>
    <message>
        <source>Show e&amp;xperimental options</source>
        <translation>E&amp;xperimentelle Optionen anzeigen</translation>
    </message>
    <message>
        <source>Experimental</source>
        <translation>Experimentell</translation>
    </message>
    <message>
        <source>Dump the IR after each stage into the output folder</source>
        <translation>Die IR nach jeder Stufe in den Ausgabeordner schreiben</translation>
    </message>
    <message>
        <source>Debug:</source>
        <translation>Fehlersuche:</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>Ausführen</translation>
    </message>
    <message>
        <source>the PEF just compiled</source>
        <translation>die eben kompilierte PEF</translation>
    </message>
    <message>
        <source>PEF to run</source>
        <translation>Auszuführende PEF</translation>
    </message>
    <message>
        <source>PEF files (*.pef);;All files (*)</source>
        <translation>PEF-Dateien (*.pef);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>P&amp;EF:</source>
        <translation>P&amp;EF:</translation>
    </message>
    <message>
        <source>&amp;Epochs:</source>
        <translation>&amp;Epochen:</translation>
    </message>
    <message>
        <source>all</source>
        <translation>alle</translation>
    </message>
    <message>
        <source>Training samples:</source>
        <translation>Trainingsbeispiele:</translation>
    </message>
    <message>
        <source>Test samples:</source>
        <translation>Testbeispiele:</translation>
    </message>
    <message>
        <source>&amp;Data folder:</source>
        <translation>&amp;Datenordner:</translation>
    </message>
    <message>
        <source>%1 (%2/%3)</source>
        <translation>%1 (%2/%3)</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>abgebrochen</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>done</source>
        <translation>fertig</translation>
    </message>
    <message>
        <source>Cancelling...</source>
        <translation>Wird abgebrochen …</translation>
    </message>
    <message>
        <source>adam</source>
        <translation>Adam</translation>
    </message>
    <message>
        <source>Fusion rule list for -o1: a built-in name or a YAML file</source>
        <translation>Fusionsregelliste für -o1: ein eingebauter Name oder eine YAML-Datei</translation>
    </message>
    <message>
        <source>Fusion rule list</source>
        <translation>Fusionsregelliste</translation>
    </message>
    <message>
        <source>Rule lists (*.yaml *.yml)</source>
        <translation>Regellisten (*.yaml *.yml)</translation>
    </message>
    <message>
        <source>-o1 &amp;rule list:</source>
        <translation>-o1-&amp;Regelliste:</translation>
    </message>
    <message>
        <source>C&amp;hips:</source>
        <translation>C&amp;hips:</translation>
    </message>
    <message>
        <source>--n-chips: up to %1 for training, %2 for inference (tensor parallel)</source>
        <translation>--n-chips: bis zu %1 beim Training, %2 bei der Inferenz (Tensor-Parallelität)</translation>
    </message>
    <message>
        <source>&amp;Tiles per chip:</source>
        <translation>&amp;Kacheln pro Chip:</translation>
    </message>
    <message>
        <source>3 or 4 factors, e.g. 1 0.8 0.5 (default: all 1)</source>
        <translation>3 oder 4 Faktoren, z. B. 1 0.8 0.5 (Vorgabe: alle 1)</translation>
    </message>
    <message>
        <source>Resource &amp;scaling factors:</source>
        <translation>Ressourcen-&amp;Skalierungsfaktoren:</translation>
    </message>
    <message>
        <source>default: the model&apos;s dataset</source>
        <translation>Vorgabe: der Datensatz des Modells</translation>
    </message>
    <message>
        <source>Model parameter &apos;%1&apos;: expected name=integer, e.g. num_layers=2</source>
        <translation>Modellparameter &apos;%1&apos;: erwartet wird name=Ganzzahl, z. B. num_layers=2</translation>
    </message>
    <message>
        <source>A model from the zoo, or the path of an .onnx or .dfir file</source>
        <translation>Ein Modell aus dem Zoo oder der Pfad einer .onnx- oder .dfir-Datei</translation>
    </message>
    <message>
        <source>Compile each layer once and reuse it (--enable-hypersection, -o3)</source>
        <translation>Jede Schicht einmal kompilieren und wiederverwenden (--enable-hypersection, -o3)</translation>
    </message>
    <message>
        <source>&amp;Hypersections:</source>
        <translation>&amp;Hypersektionen:</translation>
    </message>
    <message>
        <source>zoo model sizes, e.g. num_layers=2 hidden_size=64</source>
        <translation>Größen des Zoo-Modells, z. B. num_layers=2 hidden_size=64</translation>
    </message>
    <message>
        <source>Layers and sizes of a zoo model: num_layers, hidden_size, num_heads, seq_len, vocab_size</source>
        <translation>Schichten und Größen eines Zoo-Modells: num_layers, hidden_size, num_heads, seq_len, vocab_size</translation>
    </message>
    <message>
        <source>Layers and si&amp;zes:</source>
        <translation>Schichten und &amp;Größen:</translation>
    </message>
</context>
<context>
    <name>dfc::views::GanttStrip</name>
    <message>
        <source>Open or compile a PEF to see its section schedule.</source>
        <translation>Öffnen oder kompilieren Sie eine PEF, um ihren Sektionsablaufplan zu sehen.</translation>
    </message>
    <message numerus="yes">
        <source>One step: %n section call(s), %1 (%2)</source>
        <translation>
            <numerusform>Ein Schritt: %n Sektionsaufruf, %1 (%2)</numerusform>
            <numerusform>Ein Schritt: %n Sektionsaufrufe, %1 (%2)</numerusform>
        </translation>
    </message>
    <message>
        <source>measured where run</source>
        <translation>gemessen, wo ausgeführt</translation>
    </message>
    <message>
        <source>Call %1: section %2 %3 (%4)
hypersection %5
estimated %6</source>
        <translation>Aufruf %1: Sektion %2 %3 (%4)
Hypersektion %5
geschätzt %6</translation>
    </message>
    <message>
        <source>
tiled x%1: an operator too big for a section streams its tiles in %1 passes</source>
        <translation>
gekachelt x%1: ein Operator, zu groß für eine Sektion, streamt seine Kacheln in %1 Durchläufen</translation>
    </message>
    <message numerus="yes">
        <source>
measured mean %1 over %n call(s)</source>
        <translation>
            <numerusform>
gemessenes Mittel %1 über %n Aufruf</numerusform>
            <numerusform>
gemessenes Mittel %1 über %n Aufrufe</numerusform>
        </translation>
    </message>
    <message>
        <source>sum of section latencies</source>
        <translation>Summe der Sektionslatenzen</translation>
    </message>
</context>
<context>
    <name>dfc::views::GraphLegend</name>
    <message>
        <source>Click to select these nodes</source>
        <translation>Klicken, um diese Knoten zu wählen</translation>
    </message>
</context>
<context>
    <name>dfc::views::GraphView</name>
    <message>
        <source>Open a PEF to see its operator graph</source>
        <translation>Öffnen Sie eine PEF, um ihren Operatorgraphen zu sehen</translation>
    </message>
    <message numerus="yes">
        <source>Layout in progress (%n node(s))…</source>
        <translation>
            <numerusform>Anordnung läuft (%n Knoten) …</numerusform>
            <numerusform>Anordnung läuft (%n Knoten) …</numerusform>
        </translation>
    </message>
    <message>
        <source>No graph</source>
        <translation>Kein Graph</translation>
    </message>
    <message>
        <source>Layout does not match the graph</source>
        <translation>Die Anordnung passt nicht zum Graphen</translation>
    </message>
    <message>
        <source>Layout failed: %1</source>
        <translation>Anordnung fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>section %1, hypersection %2</source>
        <translation>Sektion %1, Hypersektion %2</translation>
    </message>
    <message>
        <source>hyperfunction %1</source>
        <translation>Hyperfunktion %1</translation>
    </message>
    <message>
        <source>role %1</source>
        <translation>Rolle %1</translation>
    </message>
    <message>
        <source>The graph has no layout yet</source>
        <translation>Der Graph ist noch nicht angeordnet</translation>
    </message>
    <message>
        <source>Cannot write %1</source>
        <translation>%1 kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>%1: double-click to fold into one node</source>
        <translation>%1: Doppelklicken, um zu einem Knoten zusammenzufalten</translation>
    </message>
    <message>
        <source>double-click to unfold</source>
        <translation>Doppelklicken zum Aufklappen</translation>
    </message>
    <message numerus="yes">
        <source>%n section(s), %1 hypersection(s)</source>
        <translation>
            <numerusform>%n Sektion, %1 Hypersektion(en)</numerusform>
            <numerusform>%n Sektionen, %1 Hypersektion(en)</numerusform>
        </translation>
    </message>
    <message>
        <source>%1 (%2), used all over the graph: drawn beside each use
double-click to go to it</source>
        <translation>%1 (%2), im ganzen Graphen verwendet: neben jeder Verwendung gezeichnet
Doppelklick springt dorthin</translation>
    </message>
    <message numerus="yes">
        <source>Laying out %n node(s)…</source>
        <translation>
            <numerusform>%n Knoten wird angeordnet …</numerusform>
            <numerusform>%n Knoten werden angeordnet …</numerusform>
        </translation>
    </message>
    <message>
        <source>Layout cancelled: fold hyperfunctions to see fewer nodes</source>
        <translation>Anordnung abgebrochen: Hyperfunktionen falten, um weniger Knoten zu sehen</translation>
    </message>
    <message>
        <source>Section boundary %1 → %2: %2 is the first section</source>
        <translation>Sektionsgrenze %1 → %2: %2 ist die erste Sektion</translation>
    </message>
    <message>
        <source>Section boundary %1 → %2
Why %2 starts here: %3</source>
        <translation>Sektionsgrenze %1 → %2
Warum %2 hier beginnt: %3</translation>
    </message>
    <message>
        <source>Section boundary %1 → %2
Why %2 starts apart from %3 (the section before it): %4</source>
        <translation>Sektionsgrenze %1 → %2
Warum %2 getrennt von %3 (der Sektion davor) beginnt: %4</translation>
    </message>
</context>
<context>
    <name>dfc::views::LayoutProgress</name>
    <message>
        <source>%v of %m groups</source>
        <translation>%v von %m Gruppen</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>Abbrechen</translation>
    </message>
    <message>
        <source>Stop laying out; the graph shown stays as it is</source>
        <translation>Anordnung abbrechen; der gezeigte Graph bleibt, wie er ist</translation>
    </message>
</context>
<context>
    <name>dfc::views::OpProfileTable</name>
    <message>
        <source>Kernel</source>
        <translation>Kernel</translation>
    </message>
    <message>
        <source>Family</source>
        <translation>Familie</translation>
    </message>
    <message>
        <source>ms / step</source>
        <translation>ms / Schritt</translation>
    </message>
    <message>
        <source>% of step</source>
        <translation>% des Schritts</translation>
    </message>
    <message>
        <source>Calls / step</source>
        <translation>Aufrufe / Schritt</translation>
    </message>
    <message>
        <source>Select a measure-performance run to see where its host time went.</source>
        <translation>Wählen Sie eine Leistungsmessung, um zu sehen, wohin ihre Host-Zeit ging.</translation>
    </message>
    <message>
        <source>Host time by kernel, %1: %L2 ms per step, %L3 % of it inside kernels</source>
        <translation>Host-Zeit nach Kernel, %1: %L2 ms pro Schritt, davon %L3 % in Kernels</translation>
    </message>
    <message>
        <source>Host time by kernel, %1</source>
        <translation>Host-Zeit nach Kernel, %1</translation>
    </message>
    <message>
        <source> %</source>
        <translation> %</translation>
    </message>
</context>
<context>
    <name>dfc::views::PerformanceChart</name>
    <message>
        <source>%1 samples/s</source>
        <translation>%1 Samples/s</translation>
    </message>
    <message>
        <source>%1 median ms</source>
        <translation>%1 Median ms</translation>
    </message>
    <message>
        <source>%1 p99 ms</source>
        <translation>%1 p99 ms</translation>
    </message>
    <message>
        <source>No measure-performance runs here yet: dfc measure-performance --pef P.pef</source>
        <translation>Noch keine measure-performance-Läufe: dfc measure-performance --pef P.pef</translation>
    </message>
    <message numerus="yes">
        <source>measure-performance runs over time (%n run(s))</source>
        <translation>
            <numerusform>measure-performance-Läufe über die Zeit (%n Lauf)</numerusform>
            <numerusform>measure-performance-Läufe über die Zeit (%n Läufe)</numerusform>
        </translation>
    </message>
    <message>
        <source>started (UTC)</source>
        <translation>gestartet (UTC)</translation>
    </message>
    <message>
        <source>samples/s</source>
        <translation>Samples/s</translation>
    </message>
    <message>
        <source>ms per step</source>
        <translation>ms pro Schritt</translation>
    </message>
</context>
<context>
    <name>dfc::views::RangeTableModel</name>
    <message>
        <source>(none)</source>
        <translation>(keine)</translation>
    </message>
    <message>
        <source>Section</source>
        <translation>Sektion</translation>
    </message>
    <message>
        <source>Hypersection</source>
        <translation>Hypersektion</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>Count</source>
        <translation>Anzahl</translation>
    </message>
    <message>
        <source>Wall total</source>
        <translation>Wandzeit gesamt</translation>
    </message>
    <message>
        <source>Self total</source>
        <translation>Eigenzeit gesamt</translation>
    </message>
    <message>
        <source>Average</source>
        <translation>Mittel</translation>
    </message>
    <message>
        <source>Min</source>
        <translation>Min.</translation>
    </message>
    <message>
        <source>Max</source>
        <translation>Max.</translation>
    </message>
</context>
<context>
    <name>dfc::views::RangeTablePanel</name>
    <message>
        <source>by name</source>
        <translation>nach Name</translation>
    </message>
    <message>
        <source>by section</source>
        <translation>nach Sektion</translation>
    </message>
    <message>
        <source>by hypersection</source>
        <translation>nach Hypersektion</translation>
    </message>
    <message>
        <source>Export CSV...</source>
        <translation>CSV exportieren …</translation>
    </message>
    <message>
        <source>Export range table</source>
        <translation>Bereichstabelle exportieren</translation>
    </message>
    <message>
        <source>CSV files (*.csv)</source>
        <translation>CSV-Dateien (*.csv)</translation>
    </message>
    <message numerus="yes">
        <source>Range of %1: %n slice(s), rows busy (wall) %2, self %3</source>
        <translation>
            <numerusform>Bereich von %1: %n Slice, Zeilen belegt (Wandzeit) %2, Eigenzeit %3</numerusform>
            <numerusform>Bereich von %1: %n Slices, Zeilen belegt (Wandzeit) %2, Eigenzeit %3</numerusform>
        </translation>
    </message>
    <message>
        <source>Cannot write %1: %2</source>
        <translation>%1 kann nicht geschrieben werden: %2</translation>
    </message>
</context>
<context>
    <name>dfc::views::Roles</name>
    <message>
        <source>forward</source>
        <translation>Vorwärts</translation>
    </message>
    <message>
        <source>backward</source>
        <translation>Rückwärts</translation>
    </message>
    <message>
        <source>reduce</source>
        <translation>Reduzieren</translation>
    </message>
    <message>
        <source>optimizer</source>
        <translation>Optimierer</translation>
    </message>
    <message>
        <source>accumulate</source>
        <translation>Akkumulieren</translation>
    </message>
</context>
<context>
    <name>dfc::views::RunsPanel</name>
    <message>
        <source>Filter by model, PEF, arch, status...</source>
        <translation>Nach Modell, PEF, Architektur, Status filtern …</translation>
    </message>
    <message>
        <source>&amp;Refresh</source>
        <translation>A&amp;ktualisieren</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation>Ö&amp;ffnen</translation>
    </message>
    <message>
        <source>&amp;Delete...</source>
        <translation>&amp;Löschen …</translation>
    </message>
    <message>
        <source>Filter:</source>
        <translation>Filter:</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>Löschen</translation>
    </message>
    <message>
        <source>Not recording runs (--db -).</source>
        <translation>Läufe werden nicht aufgezeichnet (--db -).</translation>
    </message>
    <message>
        <source>Cannot open the run store: %1</source>
        <translation>Der Laufspeicher kann nicht geöffnet werden: %1</translation>
    </message>
    <message>
        <source>Cannot read the run store: %1</source>
        <translation>Der Laufspeicher kann nicht gelesen werden: %1</translation>
    </message>
    <message>
        <source>%1: %2 compile(s), %3 run(s). Double-click a row to open it.</source>
        <translation>%1: %2 Kompilierung(en), %3 Lauf/Läufe. Doppelklicken Sie auf eine Zeile, um sie zu öffnen.</translation>
    </message>
    <message>
        <source>Run #%1 has no trace file (status: %2).</source>
        <translation>Lauf #%1 hat keine Trace-Datei (Status: %2).</translation>
    </message>
    <message>
        <source>Delete run #%1 of %2 from the run store? Its trace file stays on disk.</source>
        <translation>Lauf #%1 von %2 aus dem Laufspeicher löschen? Seine Trace-Datei bleibt auf der Festplatte.</translation>
    </message>
    <message>
        <source>Delete compile #%1 (%2) from the run store? The PEF stays on disk; its runs are kept.</source>
        <translation>Kompilierung #%1 (%2) aus dem Laufspeicher löschen? Die PEF bleibt auf der Festplatte; ihre Läufe bleiben erhalten.</translation>
    </message>
    <message>
        <source>Delete failed: %1</source>
        <translation>Löschen fehlgeschlagen: %1</translation>
    </message>
    <message>
        <source>Select a measure-performance run to see where its host time went.</source>
        <translation>Wählen Sie eine Leistungsmessung, um zu sehen, wohin ihre Host-Zeit ging.</translation>
    </message>
    <message>
        <source>Run #%1 was measured without a kernel profile: `dfc measure-performance --op-profile` times every kernel.</source>
        <translation>Lauf #%1 wurde ohne Kernel-Profil gemessen: `dfc measure-performance --op-profile` misst jeden Kernel.</translation>
    </message>
    <message>
        <source>run #%1 of %2</source>
        <translation>Lauf #%1 von %2</translation>
    </message>
    <message>
        <source>newest profiled run #%1 of %2</source>
        <translation>neuester profilierter Lauf #%1 von %2</translation>
    </message>
</context>
<context>
    <name>dfc::views::RunsTableModel</name>
    <message>
        <source>performance</source>
        <translation>Leistungsmessung</translation>
    </message>
    <message>
        <source>%L1 samples/s, step median %L2 ms (p90 %L3, p99 %L4); chip estimate %L5 samples/s</source>
        <translation>%L1 Samples/s, Schritt-Median %L2 ms (p90 %L3, p99 %L4); Chip-Schätzung %L5 Samples/s</translation>
    </message>
    <message>
        <source>Double-click to open the measured PEF
%1</source>
        <translation>Doppelklick öffnet die gemessene PEF
%1</translation>
    </message>
    <message>
        <source>%1, %2, batch %3, %4</source>
        <translation>%1, %2, Batch %3, %4</translation>
    </message>
    <message>
        <source>inference</source>
        <translation>Inferenz</translation>
    </message>
    <message>
        <source>training</source>
        <translation>Training</translation>
    </message>
    <message>
        <source>compiled</source>
        <translation>kompiliert</translation>
    </message>
    <message numerus="yes">
        <source>%n epoch(s)</source>
        <translation>
            <numerusform>%n Epoche</numerusform>
            <numerusform>%n Epochen</numerusform>
        </translation>
    </message>
    <message>
        <source>loss %1</source>
        <translation>Verlust %1</translation>
    </message>
    <message>
        <source>accuracy %1 %</source>
        <translation>Genauigkeit %1 %</translation>
    </message>
    <message>
        <source>compile #%1</source>
        <translation>Kompilierung #%1</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>beendet</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>fehlgeschlagen</translation>
    </message>
    <message>
        <source>running</source>
        <translation>läuft</translation>
    </message>
    <message>
        <source>died (did not finish)</source>
        <translation>abgebrochen (nicht beendet)</translation>
    </message>
    <message>
        <source>Double-click to open the trace of this run
%1</source>
        <translation>Doppelklicken, um den Trace dieses Laufs zu öffnen
%1</translation>
    </message>
    <message>
        <source>Double-click to open this PEF
%1</source>
        <translation>Doppelklicken, um diese PEF zu öffnen
%1</translation>
    </message>
    <message>
        <source>run</source>
        <translation>Lauf</translation>
    </message>
    <message>
        <source>compile</source>
        <translation>Kompilierung</translation>
    </message>
    <message>
        <source>%1 in %2 ms</source>
        <translation>%1 in %2 ms</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Art</translation>
    </message>
    <message>
        <source>ID</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>PEF (model)</source>
        <translation>PEF (Modell)</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Details</translation>
    </message>
    <message>
        <source>Started (UTC)</source>
        <translation>Begonnen (UTC)</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>Status</translation>
    </message>
    <message>
        <source>File</source>
        <translation>Datei</translation>
    </message>
</context>
<context>
    <name>dfc::views::SchedulePanel</name>
    <message>
        <source>%1 x %2, tensor parallel</source>
        <translation>%1 × %2, tensorparallel</translation>
    </message>
    <message>
        <source> Share of peak: %1 of %2 TFLOP/s</source>
        <translation> Anteil am Spitzenwert: %1 von %2 TFLOP/s</translation>
    </message>
    <message>
        <source>, HBM %1 of %2 GB/s</source>
        <translation>, HBM %1 von %2 GB/s</translation>
    </message>
    <message>
        <source>, DDR %1 of %2 GB/s</source>
        <translation>, DDR %1 von %2 GB/s</translation>
    </message>
    <message>
        <source>, chip link %1 of %2 GB/s</source>
        <translation>, Chip-Verbindung %1 von %2 GB/s</translation>
    </message>
    <message>
        <source>&amp;Group by hypersection</source>
        <translation>Nach Hypersektion &amp;gruppieren</translation>
    </message>
    <message>
        <source>One row per hypersection: its sections&apos; calls and times per step</source>
        <translation>Eine Zeile pro Hypersektion: Aufrufe und Zeiten ihrer Sektionen pro Schritt</translation>
    </message>
    <message>
        <source>Hypersection</source>
        <translation>Hypersektion</translation>
    </message>
    <message>
        <source>Sections</source>
        <translation>Sektionen</translation>
    </message>
    <message>
        <source>Calls per step</source>
        <translation>Aufrufe pro Schritt</translation>
    </message>
    <message>
        <source>Est. per step</source>
        <translation>Geschätzt pro Schritt</translation>
    </message>
    <message>
        <source>Measured per step</source>
        <translation>Gemessen pro Schritt</translation>
    </message>
    <message>
        <source>Peak est. PCUs</source>
        <translation>Max. geschätzte PCUs</translation>
    </message>
    <message>
        <source>No PEF loaded. Compile a model or open a PEF (Ctrl+O).</source>
        <translation>Keine PEF geladen. Kompilieren Sie ein Modell oder öffnen Sie eine PEF (Strg+O).</translation>
    </message>
    <message>
        <source>unknown arch</source>
        <translation>unbekannte Architektur</translation>
    </message>
    <message>
        <source>; measured times from the latest recorded run</source>
        <translation>; gemessene Zeiten aus dem letzten aufgezeichneten Lauf</translation>
    </message>
    <message>
        <source>; no recorded run (measured column blank)</source>
        <translation>; kein aufgezeichneter Lauf (Messspalte leer)</translation>
    </message>
    <message>
        <source>estimated (%1)</source>
        <translation>geschätzt (%1)</translation>
    </message>
    <message>
        <source>measured mean (%1)</source>
        <translation>gemessenes Mittel (%1)</translation>
    </message>
    <message>
        <source>Unit use per section (%1: %2 PCUs, %3 PMUs)</source>
        <translation>Einheitennutzung pro Sektion (%1: %2 PCUs, %3 PMUs)</translation>
    </message>
    <message>
        <source>Unit use per section (arch capacity unknown)</source>
        <translation>Einheitennutzung pro Sektion (Kapazität der Architektur unbekannt)</translation>
    </message>
    <message>
        <source>% of capacity</source>
        <translation>% der Kapazität</translation>
    </message>
    <message>
        <source>units</source>
        <translation>Einheiten</translation>
    </message>
    <message>
        <source> (sections summed per bar)</source>
        <translation> (Sektionen je Balken summiert)</translation>
    </message>
    <message>
        <source>sections from</source>
        <translation>Sektionen ab</translation>
    </message>
    <message>
        <source>section</source>
        <translation>Sektion</translation>
    </message>
    <message>
        <source>Estimated latency per section%1</source>
        <translation>Geschätzte Latenz pro Sektion%1</translation>
    </message>
    <message>
        <source> (peak per bar)</source>
        <translation> (Spitze je Balken)</translation>
    </message>
    <message>
        <source>est. PCUs (% of capacity)</source>
        <translation>geschätzte PCUs (% der Kapazität)</translation>
    </message>
    <message>
        <source>est. PMUs (% of capacity)</source>
        <translation>geschätzte PMUs (% der Kapazität)</translation>
    </message>
    <message>
        <source>Step estimate (dfc estimate; %1, %2 fusion): &lt;b&gt;%3 %4&lt;/b&gt;, step %5 = compute %6, memory %7 (HBM %8, DDR %9), communication %10, call overhead %11. Bound: &lt;b&gt;%12&lt;/b&gt;.</source>
        <translation>Schritt-Schätzung (dfc estimate; %1, Fusion %2): &lt;b&gt;%3 %4&lt;/b&gt;, Schritt %5 = Rechnen %6, Speicher %7 (HBM %8, DDR %9), Kommunikation %10, Aufruf-Overhead %11. Begrenzt durch: &lt;b&gt;%12&lt;/b&gt;.</translation>
    </message>
    <message>
        <source>Sum of the Est. latency column: each section&apos;s own compile-time cost-model latency (arch/CostModel), the sections running one after another, with no call overhead and no overlap between sections. The step estimate on the next line is a different model.</source>
        <translation>Summe der Spalte „Geschätzte Latenz“: die eigene Kostenmodell-Latenz jeder Sektion aus der Kompilierung (arch/CostModel), die Sektionen laufen nacheinander, ohne Aufruf-Overhead und ohne Überlappung zwischen Sektionen. Die Schritt-Schätzung in der nächsten Zeile ist ein anderes Modell.</translation>
    </message>
    <message>
        <source>block fusion: the sections stream as one pipelined call, the next section&apos;s weights loading while this one computes, one call overhead</source>
        <translation>Block-Fusion: die Sektionen laufen als ein Pipeline-Aufruf, die Gewichte der nächsten Sektion laden, während diese rechnet, ein Aufruf-Overhead</translation>
    </message>
    <message>
        <source>layer fusion: one pipelined call per decoder layer, drained between calls, each paying its call overhead</source>
        <translation>Schicht-Fusion: ein Pipeline-Aufruf pro Decoder-Schicht, zwischen den Aufrufen geleert, jeder mit seinem Aufruf-Overhead</translation>
    </message>
    <message>
        <source>section fusion: one call per section, each paying its call overhead</source>
        <translation>Sektions-Fusion: ein Aufruf pro Sektion, jeder mit seinem Aufruf-Overhead</translation>
    </message>
    <message>
        <source>The whole-step model of dfc estimate (engine/estimate): per-tier memory traffic at %1 bytes per element, compute, communication and %2. It differs from the sum of section latencies on the line above, which adds each section&apos;s compile-time estimate.</source>
        <translation>Das Modell des ganzen Schritts von dfc estimate (engine/estimate): Speicherverkehr je Speicherebene bei %1 Byte pro Element, Rechnen, Kommunikation und %2. Es weicht von der Summe der Sektionslatenzen in der Zeile darüber ab, die die Schätzung jeder Sektion aus der Kompilierung addiert.</translation>
    </message>
    <message numerus="yes">
        <source>%1 on %2: %n section(s), sum of section latencies %3 per step%4</source>
        <translation>
            <numerusform>%1 auf %2: %n Sektion, Summe der Sektionslatenzen %3 pro Schritt%4</numerusform>
            <numerusform>%1 auf %2: %n Sektionen, Summe der Sektionslatenzen %3 pro Schritt%4</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>dfc::views::ScheduleTableModel</name>
    <message>
        <source>Section %1 (%2)
hyperfunction: %3</source>
        <translation>Sektion %1 (%2)
Hyperfunktion: %3</translation>
    </message>
    <message>
        <source>top level</source>
        <translation>oberste Ebene</translation>
    </message>
    <message>
        <source>No recorded run of this PEF</source>
        <translation>Kein aufgezeichneter Lauf dieser PEF</translation>
    </message>
    <message>
        <source>Section</source>
        <translation>Sektion</translation>
    </message>
    <message>
        <source>Type</source>
        <translation>Typ</translation>
    </message>
    <message>
        <source>Hypersection</source>
        <translation>Hypersektion</translation>
    </message>
    <message>
        <source>TFLOP</source>
        <translation>TFLOP</translation>
    </message>
    <message>
        <source>Est. PCUs</source>
        <translation>Geschätzte PCUs</translation>
    </message>
    <message>
        <source>Est. PMUs</source>
        <translation>Geschätzte PMUs</translation>
    </message>
    <message>
        <source>Placed PCUs</source>
        <translation>Platzierte PCUs</translation>
    </message>
    <message>
        <source>Placed PMUs</source>
        <translation>Platzierte PMUs</translation>
    </message>
    <message>
        <source>Est. latency</source>
        <translation>Geschätzte Latenz</translation>
    </message>
    <message>
        <source>Measured mean</source>
        <translation>Gemessenes Mittel</translation>
    </message>
    <message>
        <source>Why a section starts here</source>
        <translation>Warum hier eine Sektion beginnt</translation>
    </message>
</context>
<context>
    <name>dfc::views::TimelinePanel</name>
    <message>
        <source>Find slices by name</source>
        <translation>Slices nach Namen suchen</translation>
    </message>
    <message>
        <source>Counts the slices whose name contains the text; Enter shows the next, Shift+Enter the previous</source>
        <translation>Zählt die Slices, deren Name den Text enthält; Eingabe zeigt den nächsten, Umschalt+Eingabe den vorigen</translation>
    </message>
    <message>
        <source>Previous match</source>
        <translation>Voriger Treffer</translation>
    </message>
    <message>
        <source>Next match</source>
        <translation>Nächster Treffer</translation>
    </message>
    <message numerus="yes">
        <source>%n slice(s)</source>
        <translation>
            <numerusform>%n Slice</numerusform>
            <numerusform>%n Slices</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source> in %n name(s)</source>
        <translation>
            <numerusform> in %n Namen</numerusform>
            <numerusform> in %n Namen</numerusform>
        </translation>
    </message>
    <message>
        <source>no more matches</source>
        <translation>keine weiteren Treffer</translation>
    </message>
    <message>
        <source>Slice colours, busiest first; click one to find its slices</source>
        <translation>Slice-Farben, die geschäftigsten zuerst; ein Klick sucht ihre Slices</translation>
    </message>
    <message>
        <source>Legend</source>
        <translation>Legende</translation>
    </message>
</context>
<context>
    <name>dfc::views::TimelineView</name>
    <message>
        <source>Pinned to the top; right-click to unpin</source>
        <translation>Oben angeheftet; Rechtsklick zum Lösen</translation>
    </message>
    <message>
        <source>Right-click to pin this row to the top</source>
        <translation>Rechtsklick heftet diese Zeile oben an</translation>
    </message>
    <message>
        <source>Pin row to top</source>
        <translation>Zeile oben anheften</translation>
    </message>
    <message>
        <source>Unpin row</source>
        <translation>Zeile lösen</translation>
    </message>
    <message>
        <source>Open a trace to see the run&apos;s timeline</source>
        <translation>Öffnen Sie einen Trace, um die Zeitleiste des Laufs zu sehen</translation>
    </message>
    <message numerus="yes">
        <source>%n slice(s)</source>
        <translation>
            <numerusform>%n Slice</numerusform>
            <numerusform>%n Slices</numerusform>
        </translation>
    </message>
    <message>
        <source>start %1, duration %2</source>
        <translation>Beginn %1, Dauer %2</translation>
    </message>
    <message numerus="yes">
        <source>%n slice(s), wall %1 in %2</source>
        <translation>
            <numerusform>%n Slice, Wandzeit %1 in %2</numerusform>
            <numerusform>%n Slices, Wandzeit %1 in %2</numerusform>
        </translation>
    </message>
    <message>
        <source>Range of %1</source>
        <translation>Bereich von %1</translation>
    </message>
    <message numerus="yes">
        <source>%n slice(s); rows busy (wall) %1, self time %2</source>
        <translation>
            <numerusform>%n Slice; Zeilen belegt (Wandzeit) %1, Eigenzeit %2</numerusform>
            <numerusform>%n Slices; Zeilen belegt (Wandzeit) %1, Eigenzeit %2</numerusform>
        </translation>
    </message>
    <message>
        <source>name</source>
        <translation>Name</translation>
    </message>
    <message>
        <source>count</source>
        <translation>Anzahl</translation>
    </message>
    <message>
        <source>wall</source>
        <translation>Wandzeit</translation>
    </message>
    <message>
        <source>self</source>
        <translation>Eigenzeit</translation>
    </message>
    <message>
        <source>mean</source>
        <translation>Mittel</translation>
    </message>
    <message numerus="yes">
        <source>&lt;p&gt;%n more name(s)&lt;/p&gt;</source>
        <translation>
            <numerusform>&lt;p&gt;%n weiterer Name&lt;/p&gt;</numerusform>
            <numerusform>&lt;p&gt;%n weitere Namen&lt;/p&gt;</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%1 · %n slice(s), %2</source>
        <translation>
            <numerusform>%1 · %n Slice, %2</numerusform>
            <numerusform>%1 · %n Slices, %2</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>The Chip screen's section once loaded (its name), or step for the step's heat map of unit use.</source>
        <translation>Die Sektion des Chip-Bildschirms nach dem Laden (ihr Name), oder step für die Heatmap der Einheitenbelegung des Schritts.</translation>
    </message>
    <message>
        <source>Graph colours once loaded: %1.</source>
        <translation>Farben des Graphen nach dem Laden: %1.</translation>
    </message>
    <message>
        <source>Pin the timeline rows of this name to the top once loaded.</source>
        <translation>Die Zeitleisten-Zeilen dieses Namens nach dem Laden oben anheften.</translation>
    </message>
    <message>
        <source>Compiles and runs models and shows their operator graph, section schedule and run timelines.</source>
        <translation>Kompiliert Modelle, führt sie aus und zeigt ihren Operatorgraphen, Sektionsablaufplan und die Zeitleisten der Läufe.</translation>
    </message>
    <message>
        <source>Run store to use (&apos;-&apos; = none).</source>
        <translation>Zu verwendender Laufspeicher (&apos;-&apos; = keiner).</translation>
    </message>
    <message>
        <source>Load the file, save a picture of the window to FILE and exit.</source>
        <translation>Die Datei laden, ein Bild des Fensters in FILE speichern und beenden.</translation>
    </message>
    <message>
        <source>A PEF, a chrome trace (.json or .json.gz) or a model to compile (.onnx, .dfir) to open.</source>
        <translation>Zu öffnen: eine PEF, ein Chrome-Trace (.json oder .json.gz) oder ein zu kompilierendes Modell (.onnx, .dfir).</translation>
    </message>
    <message>
        <source>Screen to show first: %1.</source>
        <translation>Zuerst gezeigte Seite: %1.</translation>
    </message>
    <message>
        <source>%1 or %2</source>
        <translation>%1 oder %2</translation>
    </message>
    <message>
        <source>Print the screen names --screen takes, one a line, and exit.</source>
        <translation>Die Namen der Seiten ausgeben, die --screen annimmt, einen je Zeile, und beenden.</translation>
    </message>
    <message>
        <source>Open the Compare screen with the given PEF on the left and PEF on the right.</source>
        <translation>Öffnet die Ansicht Vergleichen mit dem ersten PEF links und dem zweiten PEF rechts.</translation>
    </message>
    <message>
        <source>Show every operation of the graph once loaded.</source>
        <translation>Nach dem Laden jede Operation des Graphen zeigen (alle entfalten).</translation>
    </message>
    <message>
        <source>Graph framing once loaded: fit (the whole graph), readable (labels at full size, at the top of the first layer) or a zoom factor there (0.15).</source>
        <translation>Ausschnitt des Graphen nach dem Laden: fit (den ganzen Graphen einpassen), readable (Beschriftungen in voller Größe, am Anfang der ersten Schicht) oder ein Zoomfaktor dort (0.15).</translation>
    </message>
</context>
<context>
    <name>dfc::views::MemoryChart</name>
    <message>
        <source>No memory timeline: open a PEF.</source>
        <translation>Kein Speicherverlauf: öffnen Sie eine PEF.</translation>
    </message>
    <message>
        <source>section call of one step (schedule order)</source>
        <translation>Sektionsaufruf eines Schritts (Reihenfolge des Ablaufplans)</translation>
    </message>
    <message>
        <source>capacity %1</source>
        <translation>Kapazität %1</translation>
    </message>
    <message>
        <source>peak %1 at call %2 (%3)</source>
        <translation>Spitze %1 bei Aufruf %2 (%3)</translation>
    </message>
    <message>
        <source>call %1: %2</source>
        <translation>Aufruf %1: %2</translation>
    </message>
    <message>
        <source>total %1</source>
        <translation>gesamt %1</translation>
    </message>
</context>
<context>
    <name>dfc::views::MemoryPanel</name>
    <message>
        <source>On-chip SRAM</source>
        <translation>On-Chip-SRAM</translation>
    </message>
    <message>
        <source>HBM</source>
        <translation>HBM</translation>
    </message>
    <message>
        <source>DDR</source>
        <translation>DDR</translation>
    </message>
    <message>
        <source>Host arena (CPU run)</source>
        <translation>Host-Arena (CPU-Lauf)</translation>
    </message>
    <message>
        <source>weights</source>
        <translation>Gewichte</translation>
    </message>
    <message>
        <source>activations</source>
        <translation>Aktivierungen</translation>
    </message>
    <message>
        <source>gradients</source>
        <translation>Gradienten</translation>
    </message>
    <message>
        <source>optimizer state</source>
        <translation>Optimiererzustand</translation>
    </message>
    <message>
        <source>KV cache</source>
        <translation>KV-Cache</translation>
    </message>
    <message>
        <source>The memory tier whose bytes the chart stacks</source>
        <translation>Die Speicherebene, deren Bytes das Diagramm stapelt</translation>
    </message>
    <message>
        <source>Tensor</source>
        <translation>Tensor</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>Art</translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation>Bytes</translation>
    </message>
    <message>
        <source>Live (calls)</source>
        <translation>Lebt (Aufrufe)</translation>
    </message>
    <message>
        <source>Made by</source>
        <translation>Erzeugt von</translation>
    </message>
    <message>
        <source>&amp;Tier:</source>
        <translation>&amp;Ebene:</translation>
    </message>
    <message>
        <source>Memory over the step (CSV)...</source>
        <translation>Speicher über den Schritt (CSV) …</translation>
    </message>
    <message>
        <source>Export memory</source>
        <translation>Speicher exportieren</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>Chart (PNG)...</source>
        <translation>Diagramm (PNG) …</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG-Bild (*.png)</translation>
    </message>
    <message>
        <source>Chart (SVG)...</source>
        <translation>Diagramm (SVG) …</translation>
    </message>
    <message>
        <source>SVG image (*.svg)</source>
        <translation>SVG-Bild (*.svg)</translation>
    </message>
    <message>
        <source>No PEF loaded. Compile a model or open a PEF (Ctrl+O).</source>
        <translation>Keine PEF geladen. Kompilieren Sie ein Modell oder öffnen Sie eine PEF (Ctrl+O).</translation>
    </message>
    <message>
        <source>No memory timeline: %1</source>
        <translation>Kein Speicherverlauf: %1</translation>
    </message>
    <message>
        <source>%1 %2 (call %3)</source>
        <translation>%1 %2 (Aufruf %3)</translation>
    </message>
    <message>
        <source>This tier holds nothing in this step.</source>
        <translation>Diese Ebene hält in diesem Schritt nichts.</translation>
    </message>
    <message>
        <source>Tensors live at the peak (call %1), largest first; click one for its lifetime and its operator</source>
        <translation>Tensoren, die an der Spitze leben (Aufruf %1), größte zuerst; klicken Sie einen für seine Lebensdauer und seinen Operator</translation>
    </message>
    <message>
        <source>Tensors live at call %1, largest first (click the chart elsewhere for another call)</source>
        <translation>Tensoren, die bei Aufruf %1 leben, größte zuerst (klicken Sie an anderer Stelle ins Diagramm für einen anderen Aufruf)</translation>
    </message>
    <message>
        <source>(input, weight or state)</source>
        <translation>(Eingabe, Gewicht oder Zustand)</translation>
    </message>
    <message numerus="yes">
        <source>%1: %n section call(s) per step. Peaks: %2.</source>
        <translation>
            <numerusform>%1: %n Sektionsaufruf je Schritt. Spitzen: %2.</numerusform>
            <numerusform>%1: %n Sektionsaufrufe je Schritt. Spitzen: %2.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>dfc::views::RooflineChart</name>
    <message>
        <source>No roofline: open a PEF.</source>
        <translation>Kein Roofline: öffnen Sie eine PEF.</translation>
    </message>
    <message>
        <source>arithmetic intensity (FLOP per off-chip byte, log)</source>
        <translation>arithmetische Intensität (FLOP je Off-Chip-Byte, log)</translation>
    </message>
    <message>
        <source>%1 compute %2</source>
        <translation>%1 Rechenleistung %2</translation>
    </message>
    <message>
        <source>%1 %2 GB/s</source>
        <translation>%1 %2 GB/s</translation>
    </message>
    <message>
        <source>host %1 GB/s</source>
        <translation>Host %1 GB/s</translation>
    </message>
    <message>
        <source>section, estimated (cost model)</source>
        <translation>Sektion, geschätzt (Kostenmodell)</translation>
    </message>
    <message>
        <source>no run measured these sections: no host points</source>
        <translation>kein Lauf hat diese Sektionen gemessen: keine Host-Punkte</translation>
    </message>
    <message>
        <source>section, measured on the host (latest run)</source>
        <translation>Sektion, auf dem Host gemessen (letzter Lauf)</translation>
    </message>
    <message>
        <source>%1
%2 per call, %3 off chip: %4 FLOP/byte
estimated %5, roof %6 (%7-bound)</source>
        <translation>%1
%2 je Aufruf, %3 außerhalb des Chips: %4 FLOP/Byte
geschätzt %5, Dach %6 (%7-begrenzt)</translation>
    </message>
    <message>
        <source>measured on the host: %1 per call, %2</source>
        <translation>auf dem Host gemessen: %1 je Aufruf, %2</translation>
    </message>
    <message numerus="yes">
        <source>host GEMM %1 (%n thread(s))</source>
        <translation>
            <numerusform>Host-GEMM %1 (%n Thread)</numerusform>
            <numerusform>Host-GEMM %1 (%n Threads)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>dfc::views::RooflinePanel</name>
    <message>
        <source>Export roofline</source>
        <translation>Roofline exportieren</translation>
    </message>
    <message>
        <source>Points (CSV)...</source>
        <translation>Punkte (CSV) …</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>Chart (PNG)...</source>
        <translation>Diagramm (PNG) …</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG-Bild (*.png)</translation>
    </message>
    <message>
        <source>Chart (SVG)...</source>
        <translation>Diagramm (SVG) …</translation>
    </message>
    <message>
        <source>SVG image (*.svg)</source>
        <translation>SVG-Bild (*.svg)</translation>
    </message>
    <message>
        <source>No PEF loaded. Compile a model or open a PEF (Ctrl+O).</source>
        <translation>Keine PEF geladen. Kompilieren Sie ein Modell oder öffnen Sie eine PEF (Ctrl+O).</translation>
    </message>
    <message>
        <source>No roofline: %1</source>
        <translation>Kein Roofline: %1</translation>
    </message>
    <message>
        <source>Click a point to select its section.</source>
        <translation>Klicken Sie einen Punkt an, um seine Sektion auszuwählen.</translation>
    </message>
    <message numerus="yes">
        <source>%1 on %2: %n section(s); ridge at %3 FLOP/byte.</source>
        <translation>
            <numerusform>%1 auf %2: %n Sektion; Knick bei %3 FLOP/Byte.</numerusform>
            <numerusform>%1 auf %2: %n Sektionen; Knick bei %3 FLOP/Byte.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n section(s) without FLOP or off-chip bytes are left off the log axes.</source>
        <translation>
            <numerusform>%n Sektion ohne FLOP oder Off-Chip-Bytes fehlt auf den log. Achsen.</numerusform>
            <numerusform>%n Sektionen ohne FLOP oder Off-Chip-Bytes fehlen auf den log. Achsen.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Host (measured once, %1 threads): GEMM %2 GFLOP/s, triad %3 GB/s; %n section(s) measured.</source>
        <translation>
            <numerusform>Host (einmal gemessen, %1 Threads): GEMM %2 GFLOP/s, Triad %3 GB/s; %n Sektion gemessen.</numerusform>
            <numerusform>Host (einmal gemessen, %1 Threads): GEMM %2 GFLOP/s, Triad %3 GB/s; %n Sektionen gemessen.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>dfc::views::ExportButton</name>
    <message>
        <source>&amp;Export</source>
        <translation>&amp;Exportieren</translation>
    </message>
</context>
</TS>
