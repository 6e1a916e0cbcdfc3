# The viewer: glad loader generated at configure time, GLFW window, ImGui HUD, GL renderer.
