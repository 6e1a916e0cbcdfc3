// The interactive viewer: the frame loop, input, camera control, HUD, loads and shader reloads.
#pragma once

#include "app/session.h"

namespace qt {

// Runs until the window closes (or --frames frames); returns the exit status.
int runViewer(Session& session);

}  // namespace qt
