#include <iostream>

#include "console/gantryctl.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return gantry::console::run_gantryctl(args, gantry::console::process_environment(), std::cin,
                                        std::cout, std::cerr);
}
