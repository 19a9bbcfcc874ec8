// Empty: SwiftPM needs a source file for a C target. Every wrapper is `static inline` in
// include/, so this target compiles to no code and links no library (module.modulemap).
