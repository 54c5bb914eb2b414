# Install layout and the .deb (cpack -G DEB in the build dir). The engine
# finds its resources at <exe>/../share/dataflow-studio/{arch,fusion_rules}.
include(GNUInstallDirs)
set(DFC_PACKAGING_DIR ${CMAKE_CURRENT_LIST_DIR})

install(TARGETS dfc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET dfstudio)
  install(TARGETS dfstudio RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES ${DFC_PACKAGING_DIR}/io.github.dataflow_studio.dfstudio.desktop
          DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${DFC_PACKAGING_DIR}/io.github.dataflow_studio.dfstudio.metainfo.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  install(FILES ${DFC_PACKAGING_DIR}/dataflow-studio.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
endif()
install(DIRECTORY ${CMAKE_SOURCE_DIR}/resources/arch ${CMAKE_SOURCE_DIR}/resources/fusion_rules
        DESTINATION ${CMAKE_INSTALL_DATADIR}/dataflow-studio)

set(CPACK_PACKAGE_NAME "dataflow-studio")
set(CPACK_PACKAGE_VENDOR "Dataflow Studio")
set(CPACK_PACKAGE_CONTACT "Dataflow Studio maintainers <dataflow-studio@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "ML compiler for a reconfigurable dataflow accelerator, with a desktop app")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_INSTALL_DIRECTORY "dataflow-studio")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/dataflow-studio/dataflow-studio")
# Library dependencies (Qt, spdlog, sqlite, BLAS, yaml-cpp, graphviz...) from the binaries.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libmpi comes in through the shlibs; `mpirun` (dfc run --data-parallel) is in openmpi-bin.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openmpi-bin")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "dfc compiles models (zoo, .dfir) into PEFs of sections and hypersections, runs them on the CPU\n simulator with chrome tracing output; dfstudio shows graphs, schedules and timelines.")
set(CPACK_GENERATOR "DEB")
include(CPack)
