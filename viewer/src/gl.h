// OpenGL 3.3 core declarations. Mesa's libGL (and GLVND's) export every core
// entry point, so prototypes from glcorearb.h link directly and no loader
// library is needed. GLFW must not include a GL header of its own: the
// build defines GLFW_INCLUDE_NONE (so include order does not matter).
#pragma once

#ifndef GL_GLEXT_PROTOTYPES
#define GL_GLEXT_PROTOTYPES 1
#endif
#include <GL/glcorearb.h>
