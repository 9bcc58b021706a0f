
BBJuR